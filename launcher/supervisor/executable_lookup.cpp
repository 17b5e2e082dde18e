#include "supervisor/executable_lookup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace {

// 0 executable regular file; else the errno execve would report.
int check(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    return errno;
  }
  if (S_ISDIR(st.st_mode)) {
    return EACCES;
  }
  return ::access(file.c_str(), X_OK) == 0 ? 0 : errno;
}

}  // namespace

util::Result<std::string, LookupError> resolve_executable(const std::string& name, const std::string& path) {
  using R = util::Result<std::string, LookupError>;
  if (name.empty()) {
    return R::failure({127, "an empty program name"});
  }
  if (name.find('/') != std::string::npos) {
    const int err = check(name);
    if (err == 0) {
      return name;
    }
    return R::failure({err == ENOENT || err == ENOTDIR ? 127 : 126,
                       util::printable(name) + ": " + (err == ENOENT ? "no such file" : "not an executable file")});
  }
  bool found_not_executable = false;
  for (const std::string& dir : util::split_list(path, ":")) {
    // An empty PATH entry means the current directory, as for execvp.
    const std::string file = (dir.empty() ? std::string(".") : dir) + "/" + name;
    const int err = check(file);
    if (err == 0) {
      return file;
    }
    found_not_executable = found_not_executable || (err != ENOENT && err != ENOTDIR);
  }
  return R::failure({found_not_executable ? 126 : 127,
                     util::printable(name) + ": " + (found_not_executable ? "found but not executable" : "not found") +
                         " on PATH (" + util::printable(path, 1024) + ")"});
}

}  // namespace launcher::supervisor
