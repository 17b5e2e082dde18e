#pragma once
#include <spdlog/sinks/sink.h>

#include <chrono>
#include <memory>
#include <mutex>

namespace launcher {

// spdlog's sink for stderr that never blocks the thread that logs: each formatted line goes
// into a queue of at most `max_bytes`, and a writer thread of its own writes the queue to fd 2.
// A stalled reader (a full log pipe, a `tee` stopped with Ctrl-Z) stalls only that thread: PID 1
// keeps reaping, forwarding signals, firing timers and answering probes. When the queue is
// full, lines are dropped and counted, and a warning with the count is logged as soon as there
// is room. A reader that went away (EPIPE: SIGPIPE is blocked) ends the writing; lines are then
// dropped. A stderr made non-blocking by the command (they share the open file) is waited on
// (POLLOUT) when full, never taken for a reader that went away. flush() waits for the queue to drain, at most `flush_timeout`.
class StderrSink final : public spdlog::sinks::sink {
 public:
  StderrSink(std::size_t max_bytes, std::chrono::milliseconds flush_timeout);
  ~StderrSink() override;

  void log(const spdlog::details::log_msg& msg) override;
  void flush() override;
  void set_pattern(const std::string& pattern) override;
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override;

  long dropped() const;  // lines dropped so far

  struct Queue;  // shared with the writer thread, which may outlive the sink

 private:
  std::shared_ptr<Queue> m_queue;  // shared with the writer thread, which may outlive the sink
  std::mutex m_format_mutex;
  std::unique_ptr<spdlog::formatter> m_formatter;
  std::chrono::milliseconds m_flush_timeout;
};

}  // namespace launcher
