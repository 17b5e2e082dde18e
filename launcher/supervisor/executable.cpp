#include "supervisor/executable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "util/fd.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace {

// binfmt_script reads the first BINPRM_BUF_SIZE (256) bytes of a script.
constexpr std::size_t k_first_line_max = 256;

std::optional<std::string> first_bytes(const std::string& path) {
  const util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  char buf[k_first_line_max];
  const ssize_t n = ::read(fd.get(), buf, sizeof buf);
  return n < 0 ? std::nullopt : std::optional<std::string>(std::string(buf, static_cast<std::size_t>(n)));
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string interpreter_problem(const std::string& exe, const std::string& interpreter) {
  std::string line = util::printable(exe) + ": its #! interpreter \"" + util::printable(interpreter) + "\" ";
  if (interpreter.find('\r') != std::string::npos) {
    return line + "has a CRLF line end (a script saved on Windows: convert it with dos2unix or sed -i 's/\\r$//')";
  }
  return line + "does not exist in this image (install it, or fix the #! line)";
}

}  // namespace

std::optional<std::string> shebang_interpreter(const std::string& exe) {
  const auto head = first_bytes(exe);
  if (!head || !head->starts_with("#!")) {
    return std::nullopt;
  }
  std::size_t at = 2;
  while (at < head->size() && ((*head)[at] == ' ' || (*head)[at] == '\t')) {
    ++at;
  }
  std::size_t end = at;
  while (end < head->size() && (*head)[end] != ' ' && (*head)[end] != '\t' && (*head)[end] != '\n' &&
         (*head)[end] != '\0') {
    ++end;
  }
  return head->substr(at, end - at);
}

std::optional<SpawnError> check_interpreter(const std::string& exe) {
  const auto interpreter = shebang_interpreter(exe);
  if (!interpreter || interpreter->empty() || exists(*interpreter)) {
    return std::nullopt;
  }
  return SpawnError{exit_code::not_executable, interpreter_problem(exe, *interpreter)};
}

int exit_code_of_exec_errno(int err) {
  return err == ENOENT || err == ENOTDIR ? exit_code::not_found : exit_code::not_executable;
}

SpawnError describe_exec_error(int err, const std::string& exe) {
  const std::string name = util::printable(exe);
  const int code = exit_code_of_exec_errno(err);
  switch (err) {
    case ENOENT:
      if (exists(exe)) {  // the file is there: what it needs to run is not (126, as bash says)
        const auto interpreter = shebang_interpreter(exe);
        return {exit_code::not_executable,
                interpreter ? interpreter_problem(exe, *interpreter)
                            : name + ": a library or loader it needs is missing (execve: ENOENT; check `ldd`)"};
      }
      return {code, name + ": not found"};
    case ENOTDIR:
      return {code, name + ": not found (a part of the path is not a directory)"};
    case ENOEXEC:
      return {code, name + ": not an executable format (a script without a #! line? start it with #!/bin/sh, or run "
                           "it through its interpreter)"};
    case EACCES:
      return {code, name + ": permission denied (not executable, or on a noexec mount)"};
    case ETXTBSY:
      return {code, name + ": text file busy (the file is open for writing)"};
    case E2BIG:
      return {code, name + ": the arguments and environment are over the kernel's limit (E2BIG)"};
    default:
      return {code, name + ": cannot be executed: " + std::strerror(err)};
  }
}

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

util::Result<std::string, SpawnError> resolve_executable(const std::string& name, const std::string& path) {
  using R = util::Result<std::string, SpawnError>;
  if (name.empty()) {
    return R::failure({exit_code::not_found, "an empty program name"});
  }
  if (name.find('/') != std::string::npos) {
    const int err = check(name);
    if (err == 0) {
      return name;
    }
    return R::failure({exit_code_of_exec_errno(err),
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
    found_not_executable = found_not_executable || exit_code_of_exec_errno(err) == exit_code::not_executable;
  }
  return R::failure({found_not_executable ? exit_code::not_executable : exit_code::not_found,
                     util::printable(name) + ": " + (found_not_executable ? "found but not executable" : "not found") +
                         " on PATH (" + util::printable(path, 1024) + ")"});
}

}  // namespace launcher::supervisor
