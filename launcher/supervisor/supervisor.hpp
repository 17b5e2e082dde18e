#pragma once
#include <boost/asio/io_context.hpp>
#include <functional>
#include <stop_token>
#include <string>

#include "supervisor/child_process.hpp"
#include "supervisor/lifecycle.hpp"
#include "supervisor/run_state.hpp"

namespace launcher::supervisor {

// What `run` hands the supervisor: the lifecycle's settings, the three programs it may spawn
// (already resolved to absolute paths), and the blocking waits, which the supervisor runs on a
// thread of their own so they never stall signal handling.
struct RunSpec {
  Settings settings;
  SpawnRequest ray;
  SpawnRequest command;
  SpawnRequest ray_stop;
  std::function<WaitFinished(Wait which, std::stop_token stop)> wait;
  std::string termination_log;  // "" to skip
};

// PID 1 duties on one Asio event loop: the termination signals and SIGCHLD read from a
// signalfd (they are blocked in every thread by setup_process), one waitpid(-1) loop that owns
// every exit status and reaps every orphan (a child subreaper when not PID 1), timers for the
// graces, Ray's output read from a pipe and logged line by line ("ray: …") without ever
// blocking Ray. Drives a Lifecycle and carries out its effects. Returns the exit code after
// writing the termination message.
class Supervisor {
 public:
  Supervisor(boost::asio::io_context& io, RunSpec spec, RunState& state);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  int run();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// Writes `line` (redacted, one line, at most 4096 bytes: the kubelet's limit) to `path`;
// silently does nothing when the file cannot be written (not in a pod, read-only).
void write_termination_message(const std::string& path, const std::string& line);

}  // namespace launcher::supervisor
