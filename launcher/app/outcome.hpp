#pragma once
#include <string>

#include "util/paced_wait.hpp"

namespace launcher {

// For a command whose wait ended: prints "raylaunch: error: <reason>" unless it was ready,
// and returns util::exit_code_of(end, stop_signal), the one map from wait ends to exit codes.
int finish_wait(util::WaitEnd end, const std::string& reason, int stop_signal);

}  // namespace launcher
