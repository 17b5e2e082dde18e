#pragma once
#include <csignal>
#include <string>

namespace launcher::util {

// The one list of how raylaunch treats signals (tini's configure_signals): every signal is
// blocked in every thread and read synchronously (a signalfd), except the synchronous faults a
// thread raises on itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT), which
// must reach their default action. Blocked, SIGPIPE makes a write to a closed pipe fail with
// EPIPE instead of killing PID 1 (`raylaunch run … 2>&1 | tee log`, then Ctrl-C on tee).
// glibc keeps its own two real-time signals (thread cancellation, setxid) out of any set.
const sigset_t& blocked_signals();

// The signals a supervisor passes on to its child: every blocked one but SIGCHLD (its own
// business: reaping) and SIGPIPE (raised by the kernel on raylaunch's own writes, never meant
// for the child). SIGWINCH and SIGCONT included, as tini forwards them.
bool is_forwarded(int signo);

// The signals that stop a blocking command that has nothing to forward them to (`wait`,
// `redis-cleanup`): SIGTERM, SIGINT, SIGHUP (its terminal went away) and SIGQUIT.
const sigset_t& stop_signals();

// A waitpid(2) status as shells report it: the exit code, or 128 + N when killed by signal N.
int exit_code_of_status(int wait_status);

// "exited with 3", "killed by SIGKILL", for log lines and termination messages.
std::string describe_status(int wait_status);

// "SIGTERM" for 15; "signal 64" when the number has no name.
std::string signal_name(int signo);

}  // namespace launcher::util
