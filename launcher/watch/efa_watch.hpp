#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "watch/efa_counters.hpp"

namespace launcher::watch {

// What one sample of the EFA counters says.
enum class EfaState {
  waiting,     // the command has not run for --efa-idle-after yet, and nothing moved so far
  moving,      // a device's counters moved within the last --efa-idle-after
  flat,        // no device's counters moved for --efa-idle-after while the command ran
  unreadable,  // no device's counters could be read: the watch cannot tell
};
const char* to_string(EfaState s);

struct EfaDeviceRate {
  std::string device;
  bool readable = false;
  double bytes_per_second = 0;  // tx+rx+send+recv bytes since the last sample, per second
  std::uint64_t total_bytes = 0;  // the four counters' sum now
};

struct EfaVerdict {
  EfaState state = EfaState::waiting;
  std::vector<EfaDeviceRate> rates;
  std::string warn;  // "" or one line to log as a warning (said once per episode)
  std::string info;  // "" or one line to log as information (traffic is back)
};

// Silent TCP fallback seen from the EFA counters, as a pure state machine: samples in (with the
// time since the command started), a verdict out. NCCL that could not use its EFA plugin falls
// back to its own sockets without an error (NeMo-RL #1973, aws-do-eks #63): a run that crawls,
// never one that fails. The counters of every one of the pod's devices staying flat for
// `idle_after` of the command's time is the sign; one device moving is enough to call it EFA.
// The first warning names the devices and the fix; it is said once until traffic comes back.
class EfaWatch {
 public:
  explicit EfaWatch(std::chrono::milliseconds idle_after) : m_idle_after(idle_after) {}

  // `sample`: read_efa_counters() now; `at`: how long the command has run.
  EfaVerdict add(const std::vector<EfaCounters>& sample, std::chrono::milliseconds at);

  EfaState state() const { return m_state; }

 private:
  std::string device_list(const std::vector<EfaCounters>& sample) const;

  std::chrono::milliseconds m_idle_after;
  std::vector<EfaCounters> m_last;
  std::chrono::milliseconds m_last_at{0};
  std::optional<std::chrono::milliseconds> m_last_moved;  // when a counter last moved
  EfaState m_state = EfaState::waiting;
  bool m_flat_said = false;
  bool m_unreadable_said = false;
};

}  // namespace launcher::watch
