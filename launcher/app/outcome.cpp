#include "app/outcome.hpp"

#include <csignal>
#include <cstdio>

#include "util/exit_codes.hpp"

namespace launcher {

int exit_code_of(util::WaitEnd end, int stop_signal) {
  switch (end) {
    case util::WaitEnd::ready:
      return exit_code::ok;
    case util::WaitEnd::not_ready:
      return exit_code::temp_fail;
    case util::WaitEnd::unreachable:
    case util::WaitEnd::refused:
      return exit_code::unavailable;
    case util::WaitEnd::stopped:
      return exit_code::killed_by(stop_signal > 0 ? stop_signal : SIGTERM);
  }
  return exit_code::software;
}

int finish_wait(util::WaitEnd end, const std::string& reason, int stop_signal) {
  if (end != util::WaitEnd::ready) {
    std::fprintf(stderr, "raylaunch: error: %s\n", reason.c_str());
  }
  return exit_code_of(end, stop_signal);
}

}  // namespace launcher
