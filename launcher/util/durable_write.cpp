#include "util/durable_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fd.hpp"

namespace launcher::util {

namespace {

std::string errno_text(const char* step) { return std::string(step) + ": " + std::strerror(errno); }

}  // namespace

std::string write_durably(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string tmp = dir + "/." + name + ".tmp-" + std::to_string(::getpid());
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd.valid()) {
    return errno_text("create");
  }
  const std::string line = text + "\n";
  if (::write(fd.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()) || ::fsync(fd.get()) != 0) {
    const std::string e = errno_text("write");
    ::unlink(tmp.c_str());
    return e;
  }
  fd.reset();
  if (::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    const std::string e = errno_text("rename");
    ::unlink(tmp.c_str());
    return e;
  }
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.valid() || ::fsync(d.get()) != 0) {
    return errno_text("fsync the directory");
  }
  return "";
}

}  // namespace launcher::util
