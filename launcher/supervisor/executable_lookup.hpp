#pragma once
#include <string>

#include "util/result.hpp"

namespace launcher::supervisor {

struct LookupError {
  int code = 127;       // 127 not found, 126 not executable
  std::string message;  // "ray: not found on PATH (/opt/venv/x/bin:/usr/bin)"
};

// `name` as execvp would find it: a name with a '/' is taken as a path; otherwise each
// directory of `path` (the child's PATH) in turn, the first regular, executable file winning.
// Done once, before anything starts, so a missing `ray` or command fails at second 0 with the
// directories searched, not after the join barrier.
util::Result<std::string, LookupError> resolve_executable(const std::string& name, const std::string& path);

}  // namespace launcher::supervisor
