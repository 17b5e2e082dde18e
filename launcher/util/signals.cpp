#include "util/signals.hpp"

#include <sys/wait.h>
#include <cstring>
#include <initializer_list>

namespace launcher::util {

namespace {

constexpr int k_synchronous_faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT};

}  // namespace

const sigset_t& blocked_signals() {
  static const sigset_t set = [] {
    sigset_t s;
    sigfillset(&s);  // glibc leaves out the signals it reserves for threads
    for (int fault : k_synchronous_faults) {
      sigdelset(&s, fault);
    }
    sigdelset(&s, SIGKILL);
    sigdelset(&s, SIGSTOP);
    return s;
  }();
  return set;
}

const sigset_t& stop_signals() {
  static const sigset_t set = [] {
    sigset_t s;
    sigemptyset(&s);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) {
      sigaddset(&s, sig);
    }
    return s;
  }();
  return set;
}

bool is_forwarded(int signo) {
  return signo != SIGCHLD && signo != SIGPIPE && sigismember(&blocked_signals(), signo) == 1;
}

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
