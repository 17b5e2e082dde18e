#pragma once
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace launcher::gang {

// How a bounded child ended.
enum class ChildEnd {
  exited,       // by itself (its status in `status` when this process reaped it)
  timed_out,    // killed at the deadline
  stopped,      // killed because `stop` was requested
  not_started,  // posix_spawn failed: `output` says why
};

struct ChildResult {
  ChildEnd end = ChildEnd::exited;
  std::optional<int> status;  // exit code (128+N for signal N); nullopt when another reaper got it
  std::string output;         // stdout and stderr, interleaved as written, at most 64 KiB
};

// Runs `exe` with `argv` (no shell), its stdout and stderr into one pipe, for at most `limit`,
// and kills it (SIGKILL to its process group) at the deadline or when `stop` is requested.
// Made for the wait threads of `run`, where the supervisor's waitpid(-1) loop reaps every
// child: the child is watched through a pidfd (Linux 5.3: pidfd_open; signalled through
// pidfd_send_signal, so a pid reused after a reap is never hit), and its status is read only
// when this call reaps it first. Callers judge a child by its output, not by its status. The
// child starts with an empty signal mask and default dispositions, in a process group of its
// own, with no descriptor but 0, 1 and 2, and this process's environment.
ChildResult run_bounded(const std::string& exe, const std::vector<std::string>& argv, std::chrono::milliseconds limit,
                        std::stop_token stop);

}  // namespace launcher::gang
