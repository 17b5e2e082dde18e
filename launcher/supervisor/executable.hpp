#pragma once
#include <optional>
#include <string>

#include "util/exit_codes.hpp"
#include "util/result.hpp"

namespace launcher::supervisor {

// Finding and judging a program before it is started, and saying why it could not be: the one
// place an errno becomes the shell's exit code (126/127).

// Why a program could not be found or executed, with the exit code a shell gives (126: found
// but cannot be executed, 127: not found) and one line that says why and what to do
// ("ray: not found on PATH (/opt/venv/x/bin:/usr/bin)").
struct SpawnError {
  int code = exit_code::not_found;
  std::string message;
};

// The shell's exit code for an errno of execve (or of looking a program up, as execve would):
// 127 when there is nothing to run there (ENOENT, ENOTDIR), 126 when there is but it cannot be
// executed (EACCES, ENOEXEC, ETXTBSY, E2BIG, …). describe_exec_error refines ENOENT.
int exit_code_of_exec_errno(int err);

// execve's `err` for `exe`, told the way a user can act on it. ENOENT for a file that exists
// means its `#!` interpreter is missing (a CRLF line end makes "/bin/sh\r" a name no file has);
// ENOEXEC a script without a `#!` line; ETXTBSY a file open for writing; E2BIG arguments and
// environment over the kernel's limit. Reads at most the file's first line.
SpawnError describe_exec_error(int err, const std::string& exe);

// The interpreter a script's first line names ("#!/usr/bin/env python3" → "/usr/bin/env"), as
// the kernel reads it (binfmt_script: up to the first blank or tab, at most 255 bytes); nullopt
// when `exe` does not start with "#!" or cannot be read.
std::optional<std::string> shebang_interpreter(const std::string& exe);

// Checked once before anything starts, so the commonest mistake fails at second 0 and not
// after the join barrier: a `#!` interpreter that does not exist (or has a CRLF line end).
// Returns the error, or nullopt when the file may well execute (execve has the last word).
std::optional<SpawnError> check_interpreter(const std::string& exe);

// `name` as execvp would find it: a name with a '/' is taken as a path; otherwise each
// directory of `path` (the child's PATH) in turn, the first regular, executable file winning.
// Done once, before anything starts, so a missing `ray` or command fails at second 0 with the
// directories searched, not after the join barrier.
util::Result<std::string, SpawnError> resolve_executable(const std::string& name, const std::string& path);

}  // namespace launcher::supervisor
