#pragma once
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "supervisor/exec_error.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::supervisor {

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

// fork + execve through Boost.Process, detached: the caller's waitpid(-1) loop owns the exit
// status (one owner for every status, as tini and dumb-init do; Boost's own per-child SIGCHLD
// handling would race it). The child starts with an empty signal mask and every signal at its
// default disposition (the parent blocks them and reads them from a signalfd), in a new
// process group (so a terminal's Ctrl-C or a group kill aimed at one child never hits
// another), with no file descriptor but 0, 1 and 2 after execve, and with raylaunch's
// environment less `drop_env`. A failed execve (a script without #!, a missing interpreter,
// ETXTBSY, E2BIG) comes back as the error with the shell's code (126/127) and the reason:
// descriptors are marked close-on-exec rather than closed, so Boost.Process's error pipe
// lives until execve succeeds and carries its errno back.
util::Result<SpawnedChild, SpawnError> spawn_child(const SpawnRequest& request);

}  // namespace launcher::supervisor
