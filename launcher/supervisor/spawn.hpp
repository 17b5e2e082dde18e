#pragma once
#include <sys/types.h>
#include <string>
#include <utility>
#include <vector>

#include "supervisor/executable.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::supervisor {

// Every descriptor of this process numbered `from` or more, read from /proc/self/fd: the list
// mark_close_on_exec falls back on. Made before fork (reading a directory allocates).
std::vector<int> open_descriptors(int from);

// Marks every descriptor from `from` up close-on-exec, so none outlives the next execve (a
// listening socket of the health endpoint held by a raylet would keep its port busy). Marked,
// not closed: until execve succeeds they all still work, Boost.Process's error pipe included,
// so a failed execve is still reported. close_range(CLOSE_RANGE_CLOEXEC) (Linux 5.11), else
// fcntl on each of `listed` (EKS' Amazon Linux 2 runs 5.10). Async-signal-safe.
void mark_close_on_exec(int from, const std::vector<int>& listed);

struct SpawnRequest {
  std::string exe;                // an absolute path (resolve_executable), never searched again
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  bool capture_output = false;    // stdout and stderr into a pipe (Ray's output), else inherited
  std::vector<std::string> drop_env;  // variables of raylaunch's environment this child must not get
  std::vector<std::pair<std::string, std::string>> set_env{};  // and variables it gets set (replacing)
};

struct SpawnedChild {
  pid_t pid = -1;     // also its process group id: every child leads a group of its own
  util::Fd output;    // read end of its stdout+stderr pipe, when captured
};

// raylaunch's environment (the plan's variables were applied to it) without `drop`, with `set`
// set: what a child gets. Built before fork, so the child allocates nothing.
class ChildEnvironment {
 public:
  explicit ChildEnvironment(const std::vector<std::string>& drop,
                            const std::vector<std::pair<std::string, std::string>>& set = {});
  char** envp() { return m_pointers.data(); }

 private:
  std::vector<std::string> m_vars;
  std::vector<char*> m_pointers;
};

// fork + execve through Boost.Process's synchronous `child` (no io_context, so Boost installs no
// SIGCHLD handler), detached at once so its destructor never terminates the child and nothing
// calls its wait(): the caller's waitpid(-1) loop owns every exit status (one owner, as tini and
// dumb-init do). The child starts with an empty signal mask and every signal at its
// default disposition (the parent blocks them and reads them from a signalfd), in a new
// process group (so a terminal's Ctrl-C or a group kill aimed at one child never hits
// another), with no file descriptor but 0, 1 and 2 after execve, and with raylaunch's
// environment less `drop_env`, plus `set_env`. A failed execve (a script without #!, a missing interpreter,
// ETXTBSY, E2BIG) comes back as the error with the shell's code (126/127) and the reason:
// descriptors are marked close-on-exec rather than closed, so Boost.Process's error pipe
// lives until execve succeeds and carries its errno back.
util::Result<SpawnedChild, SpawnError> spawn_child(const SpawnRequest& request);

// How an exec_in_place attempt came back (it returns only when the command did not replace
// raylaunch).
struct ExecAttempt {
  int interrupted_by = 0;  // a signal arrived as the exec was under way: handle it, then retry
  SpawnError error;        // otherwise: why execve failed (126/127 and the reason)
};

// --exec: replaces raylaunch with `exe` (same pid) with the clean start every child gets: an
// empty signal mask, every signal at its default disposition, no descriptor but 0, 1 and 2,
// and raylaunch's environment less `drop_env`. On any path that returns, raylaunch is left
// exactly as it was — its event loop's descriptors open, its mask and dispositions restored —
// so a failed execve is an event like any other, never a deaf, spinning PID 1:
//   - descriptors are marked close-on-exec, not closed (harmless to a running process);
//   - the mask can only be emptied in the process itself, just before execve; for that window
//     every blockable signal gets a handler (handled signals are reset to the default by
//     execve, ignored ones would not be). A signal that arrives in the window (or was pending)
//     jumps back out (siglongjmp restores the mask) and comes back as `interrupted_by`, never
//     lost; one that arrives during execve stays pending for the new program. SIGCHLD and
//     SIGPIPE are only consumed (reap after the call).
// Call it on the thread that owns the signals (every other thread blocks them all).
ExecAttempt exec_in_place(const std::string& exe, const std::vector<std::string>& argv,
                          const std::vector<std::string>& drop_env,
                          const std::vector<std::pair<std::string, std::string>>& set_env = {});

}  // namespace launcher::supervisor
