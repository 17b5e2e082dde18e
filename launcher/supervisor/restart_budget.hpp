#pragma once
#include <chrono>
#include <deque>
#include <string>

namespace launcher::supervisor {

// Whether the command's exit status is worth running it again in place (RAYLAUNCH_RESTARTS):
// any failure except raylaunch's own codes (64, 69, 70, 71, 74, 75, 77, 78: a setting, the head,
// a node check — a rerun on the same pod changes none of them), a command that cannot be run
// (126, 127), and SIGTERM or SIGINT (143, 130: someone wants the run to end). A crash (1), an
// abort (134), a SIGKILL from the OOM killer (137) are retryable.
bool retryable_exit(int code);

// How many in-place restarts fit: at most `max` within any `window` (a sliding window, as
// systemd's StartLimitBurst within StartLimitIntervalSec). Pure: time comes with each call, as
// the time since the run started.
class RestartBudget {
 public:
  RestartBudget(int max, std::chrono::milliseconds window) : m_max(max), m_window(window) {}

  // True, and the restart counted, when fewer than `max` restarts happened in the `window`
  // before `at`.
  bool take(std::chrono::milliseconds at);

  bool enabled() const { return m_max > 0; }
  int used() const { return m_used; }  // restarts so far, whatever their age
  // "3 within 1h"
  std::string describe() const;

 private:
  int m_max = 0;
  std::chrono::milliseconds m_window{0};
  std::deque<std::chrono::milliseconds> m_recent;  // when the restarts in the window happened
  int m_used = 0;
};

}  // namespace launcher::supervisor
