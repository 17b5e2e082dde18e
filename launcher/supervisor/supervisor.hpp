#pragma once
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>

#include "supervisor/lifecycle.hpp"
#include "supervisor/spawn.hpp"

namespace launcher::supervisor {

// What the supervisor knows about the run, read by the health endpoint and /metrics on the event
// loop. The plain fields are written on the event loop only. The atomic ones are shared with
// the wait threads (app/run_waits.cpp): the join barrier stores its counts and time, the head
// watch its cost, the drain its outcome, and they read when Ray was started (for Ray's node
// rows); the event loop reads them for /metrics while those threads run.
struct RunState {
  Phase phase = Phase::starting;
  bool head = true;
  bool ray_started = false;         // `ray start` was spawned at least once
  std::chrono::steady_clock::time_point ray_started_at{};  // when it was spawned last
  std::atomic<std::int64_t> ray_started_wall_ms{0};       // the same, wall-clock ms (Ray's node rows use it)
  bool ray_running = false;
  int command_exit_code = -1;       // its last run's status; -1 while it (or a rerun) runs, or before
  int command_restarts = 0;         // reruns in place that started (RAYLAUNCH_RESTARTS)
  std::chrono::steady_clock::time_point started_at = std::chrono::steady_clock::now();
  std::atomic<std::int64_t> join_wait_ms{0};  // how long the barrier took (or has taken so far)
  std::atomic<int> nodes_alive{0};  // distinct ALIVE pods at the last barrier poll
  int nodes_wanted = 1;
  std::atomic<int> nodes_present{0};  // distinct pods ALIVE when the command last started
  // What the head watch cost (worker): its RPCs and their protobuf payload bytes.
  std::atomic<std::int64_t> watch_rpcs{0};
  std::atomic<std::int64_t> watch_bytes_sent{0};
  std::atomic<std::int64_t> watch_bytes_received{0};
  // Drains of this node on SIGTERM (worker), by how they went: drained (idle before the deadline),
  // deadline (work ran until it), not_drained (no row, rejected, failed), unsupported (no DrainNode),
  // head_gone (the head went away during it, without GCS fault tolerance).
  std::atomic<int> drains_drained{0};
  std::atomic<int> drains_deadline{0};
  std::atomic<int> drains_not_drained{0};
  std::atomic<int> drains_unsupported{0};
  std::atomic<int> drains_head_gone{0};  // the head went away during it, without GCS fault tolerance
  std::string reason;               // why the run ended (or is ending)
  // The head's gang fabric check, in Prometheus text, written once by the wait that ran it
  // (gang/fabric_metrics.cpp) and appended to /metrics; "" before (or without) it.
  mutable std::mutex fabric_mutex;
  std::string fabric_metrics;
};

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
  // The watches of a run of the command (app/run_watches), when Settings::watch_command: started
  // (StartWatches) with a function that asks, from the watches' own thread, for the command to be
  // stopped (a StopCommand event on the loop); stopped and joined (StopWatches) when it exits.
  std::function<void(std::function<void(StopCommand)> stop_command)> start_watches;
  std::function<void()> stop_watches;
  // Records the command's starts on the head's GCS store (RecordRun, when Settings::record_runs):
  // called before each start with the count, this one included.
  std::function<void(int runs)> record_run;
};

// PID 1 duties on one Asio event loop: the termination signals and SIGCHLD read from a
// signalfd (they are blocked in every thread by setup_process), one waitpid(-1) loop that owns
// every exit status and reaps every orphan (a child subreaper when not PID 1), timers for the
// graces, Ray's output read from a pipe and logged line by line ("ray: …", OutputRelay). Drives a Lifecycle and carries out its effects. Returns the exit code after
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
