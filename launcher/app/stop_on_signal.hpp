#pragma once
#include <atomic>
#include <stop_token>
#include <thread>

namespace launcher {

// For a blocking command in SignalMode::handled (`wait`): a thread that reads the blocked
// termination signals and requests a stop, so the wait ends within one poll interval and the
// command exits 128+N with a line instead of dying mid-log. Ends with the object.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  std::stop_token token() const { return m_source.get_token(); }
  int signal() const { return m_signal.load(); }  // 0 until one arrived

 private:
  std::stop_source m_source;
  std::atomic<int> m_signal{0};
  int m_signal_fd = -1;
  int m_wake_fd = -1;
  std::thread m_thread;
};

}  // namespace launcher
