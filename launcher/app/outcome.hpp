#pragma once
#include <string>

#include "util/paced_wait.hpp"

namespace launcher {

// The one map from how a wait ended to the exit code (README "Exit codes"), shared by `wait`,
// `run` and the Redis preflight:
//   ready 0; not_ready 75 (the join barrier timed out); unreachable 69; refused 69 (the other
//   side rejected our credentials: retrying cannot help); stopped 128+signal (143 on SIGTERM).
int exit_code_of(util::WaitEnd end, int stop_signal);

// For a command whose wait ended: prints "raylaunch: error: <reason>" unless it was ready,
// and returns exit_code_of(end, stop_signal).
int finish_wait(util::WaitEnd end, const std::string& reason, int stop_signal);

}  // namespace launcher
