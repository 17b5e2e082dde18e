#include "util/signals.hpp"

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

}  // namespace launcher::util
