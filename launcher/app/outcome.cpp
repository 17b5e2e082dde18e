#include "app/outcome.hpp"

#include <cstdio>

namespace launcher {

int finish_wait(util::WaitEnd end, const std::string& reason, int stop_signal) {
  if (end != util::WaitEnd::ready) {
    std::fprintf(stderr, "raylaunch: error: %s\n", reason.c_str());
  }
  return util::exit_code_of(end, stop_signal);
}

}  // namespace launcher
