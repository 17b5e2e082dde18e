#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::supervisor {

struct SpawnRequest {
  std::string exe;                // an absolute path (resolve_executable), never searched again
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  bool capture_output = false;    // stdout and stderr into a pipe (Ray's output), else inherited
};

struct SpawnedChild {
  pid_t pid = -1;     // also its process group id: every child leads a group of its own
  util::Fd output;    // read end of its stdout+stderr pipe, when captured
};

// Why a spawn failed, with the exit code a shell would give (126 cannot execute, 127 not found).
struct SpawnError {
  int code = 127;
  std::string message;
};

// fork + execve through Boost.Process, detached: the caller's waitpid(-1) loop owns the exit
// status (one owner for every status, as tini and dumb-init do; Boost's own per-child SIGCHLD
// handling would race it). The child starts with an empty signal mask and every signal at its
// default disposition (the parent blocks the termination signals and reads them from a
// signalfd), in a new process group (so a terminal's Ctrl-C or a group kill aimed at one child
// never hits another), with no file descriptor but 0, 1 and 2 open, and with raylaunch's
// environment (the plan's variables were applied to it before anything was spawned).
util::Result<SpawnedChild, SpawnError> spawn_child(const SpawnRequest& request);

// The same clean start, for --exec: resets the mask and dispositions and execve()s `exe` in
// place of raylaunch. Returns only on failure.
SpawnError exec_in_place(const std::string& exe, const std::vector<std::string>& argv);

}  // namespace launcher::supervisor
