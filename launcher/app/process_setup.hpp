#pragma once
#include <atomic>
#include <csignal>
#include <stop_token>
#include <string>
#include <thread>

#include "config/config.hpp"
#include "util/paced_wait.hpp"

namespace launcher {

// How a command treats signals (the one list: util/signals.hpp).
enum class SignalMode {
  defaults,  // the kernel's defaults: a probe or `plan` simply dies on Ctrl-C
  handled,   // all but the synchronous faults blocked in every thread, read synchronously
             // (signalfd) by the command itself: `run` forwards them, `wait` stops its wait and
             // exits 128+N; SIGPIPE blocked, so a closed stderr or stdout is EPIPE, never death
};

// Blocks util::blocked_signals(): the first thing main does, before parsing a single argument. As
// PID 1 a signal at its default disposition is dropped, so a SIGTERM arriving in the
// milliseconds before setup_process would be lost and the pod would run out its grace period.
// Blocked, it stays pending: `run` reads it from its signalfd, the others get it on unblock.
void block_handled_signals();

// The process set-up every command makes once, first, before any thread exists (gRPC and
// c-ares threads inherit the signal mask of the thread that creates them): logging, gRPC's
// own log lines routed through it, and the signal mask (a `defaults` command unblocks what
// block_handled_signals blocked; a pending signal then acts at once). Calling it again only
// reconfigures.
void setup_process(const Config& config, SignalMode mode);

// spdlog on stderr: "2026-11-30T06:06:15.090 [info raylaunch 42] message", or one JSON object
// per line ({"time", "level", "pid", "msg"}, built with a JSON library: always valid). Every
// message passes util::redact() (no registered secret is ever printed) and control bytes are
// escaped, so one log call is one line. Lines are written by a thread of their own
// (StderrSink): logging never blocks, a stalled stderr drops lines (counted, then reported),
// and flush() waits at most a second. Safe to call again: the logger is reconfigured, not
// registered twice.
void setup_logging(LogFormat format, const std::string& level);

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

// For a command whose wait ended: prints "raylaunch: error: <reason>" unless it was ready,
// and returns util::exit_code_of(end, stop_signal), the one map from wait ends to exit codes.
int finish_wait(util::WaitEnd end, const std::string& reason, int stop_signal);

}  // namespace launcher
