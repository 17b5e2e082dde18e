#pragma once
#include <string>
#include <vector>

#include "supervisor/exec_error.hpp"

namespace launcher::supervisor {

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
