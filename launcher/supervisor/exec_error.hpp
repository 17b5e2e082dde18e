#pragma once
#include <optional>
#include <string>

namespace launcher::supervisor {

// Why a program could not be executed, with the exit code a shell gives (126: found but cannot
// be executed, 127: not found) and one line that says why and what to do.
struct SpawnError {
  int code = 127;
  std::string message;
};

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

}  // namespace launcher::supervisor
