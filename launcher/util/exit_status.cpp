#include "util/exit_status.hpp"

#include <sys/wait.h>

#include <cstring>

namespace launcher::util {

int exit_code_of_status(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return WEXITSTATUS(wait_status);
  }
  if (WIFSIGNALED(wait_status)) {
    return 128 + WTERMSIG(wait_status);
  }
  return 128;
}

std::string signal_name(int signo) {
  const char* abbrev = sigabbrev_np(signo);  // glibc ≥ 2.32: "TERM"
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signo);
}

std::string describe_status(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return "exited with " + std::to_string(WEXITSTATUS(wait_status));
  }
  if (WIFSIGNALED(wait_status)) {
    return "killed by " + signal_name(WTERMSIG(wait_status)) + (WCOREDUMP(wait_status) ? " (core dumped)" : "");
  }
  return "stopped";
}

}  // namespace launcher::util
