#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "watch/efa_watch.hpp"

namespace launcher::watch {

// What the watches last saw, for /metrics and /readyz.
struct WatchSnapshot {
  bool efa_enabled = false;
  EfaState efa_state = EfaState::waiting;
  std::vector<EfaDeviceRate> efa_devices;
  bool efa_readyz = false;            // --efa-idle-readyz: a flat fabric fails /readyz
  std::string efa_line;               // the flat warning, for /readyz
  bool ras_enabled = false;
  bool ras_up = false;                // the last poll was answered and understood
  std::string ras_format;             // "json", "text" or "" before any answer
  std::uint64_t ras_polls_ok = 0;
  std::uint64_t ras_polls_failed = 0;
  double ras_poll_seconds = 0;        // the last poll's duration
  int communicators = 0;
  int communicators_waiting = 0;
  int communicators_stuck = 0;
  std::uint64_t stuck_total = 0;      // stuck communicators found, while any command ran
  std::uint64_t commands_stopped = 0; // commands stopped for one (--nccl-ras-on-stuck stop)
};

// The snapshot, shared between the watches' thread (writer) and the event loop (reader).
class WatchBoard {
 public:
  template <typename F>
  void update(F&& change) {
    std::lock_guard lock(m_mutex);
    change(m_snapshot);
  }
  WatchSnapshot get() const {
    std::lock_guard lock(m_mutex);
    return m_snapshot;
  }

 private:
  mutable std::mutex m_mutex;
  WatchSnapshot m_snapshot;
};

// The watches' families in Prometheus text format (0.0.4), appended to raylaunch's /metrics.
// Device names are the pod's EFA device names (a-z, 0-9, '_'), never user text.
std::string render_watch_metrics(const WatchSnapshot& s);

// "" when /readyz may pass as far as the watches go, else the line that says why not.
std::string watch_not_ready(const WatchSnapshot& s);

}  // namespace launcher::watch
