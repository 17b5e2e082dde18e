#pragma once
#include <string>

namespace launcher::util {

// Writes `text` and a newline to `dir`/`name` so that a crash or a power loss leaves the old
// file or the new one, never half of either: a temporary file beside it, fsync, rename over the
// name, fsync of the directory (as Ray writes its session_name). Returns "" when it all worked,
// else the step that failed and strerror ("rename: Read-only file system"); the temporary file
// is removed on a failure.
std::string write_durably(const std::string& dir, const std::string& name, const std::string& text);

}  // namespace launcher::util
