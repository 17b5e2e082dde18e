#include "supervisor/exec_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fd.hpp"
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
  return SpawnError{126, interpreter_problem(exe, *interpreter)};
}

SpawnError describe_exec_error(int err, const std::string& exe) {
  const std::string name = util::printable(exe);
  switch (err) {
    case ENOENT:
      if (exists(exe)) {
        const auto interpreter = shebang_interpreter(exe);
        return {126, interpreter ? interpreter_problem(exe, *interpreter)
                                 : name + ": a library or loader it needs is missing (execve: ENOENT; check `ldd`)"};
      }
      return {127, name + ": not found"};
    case ENOTDIR:
      return {127, name + ": not found (a part of the path is not a directory)"};
    case ENOEXEC:
      return {126, name + ": not an executable format (a script without a #! line? start it with #!/bin/sh, or run "
                          "it through its interpreter)"};
    case EACCES:
      return {126, name + ": permission denied (not executable, or on a noexec mount)"};
    case ETXTBSY:
      return {126, name + ": text file busy (the file is open for writing)"};
    case E2BIG:
      return {126, name + ": the arguments and environment are over the kernel's limit (E2BIG)"};
    default:
      return {126, name + ": cannot be executed: " + std::strerror(err)};
  }
}

}  // namespace launcher::supervisor
