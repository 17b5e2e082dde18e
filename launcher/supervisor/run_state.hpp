#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "supervisor/lifecycle.hpp"

namespace launcher::supervisor {

// What the supervisor knows about the run, read by the health endpoint and /metrics. Written
// on the event loop, except the join barrier's counts and time, which its thread stores
// atomically (the event loop reads them for /metrics while the barrier runs).
struct RunState {
  Phase phase = Phase::starting;
  bool head = true;
  bool ray_started = false;         // `ray start` was spawned at least once
  std::chrono::steady_clock::time_point ray_started_at{};  // when it was spawned last
  std::atomic<std::int64_t> ray_started_wall_ms{0};       // the same, wall-clock ms (Ray's node rows use it)
  bool ray_running = false;
  bool ray_died = false;            // Ray exited on its own (not stopped by raylaunch)
  int ray_exits = 0;                // times `ray start` exited
  int command_exit_code = -1;       // -1: not exited (or not run)
  int command_restarts = 0;         // times the command ran again in place (RAYLAUNCH_RESTARTS)
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
  // deadline (work ran until it), not_drained (no row, rejected, failed), unsupported (no DrainNode).
  std::atomic<int> drains_drained{0};
  std::atomic<int> drains_deadline{0};
  std::atomic<int> drains_not_drained{0};
  std::atomic<int> drains_unsupported{0};
  std::string reason;               // why the run ended (or is ending)
};

}  // namespace launcher::supervisor
