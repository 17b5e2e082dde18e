#include "supervisor/descriptors.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

namespace launcher::supervisor {

namespace {

constexpr unsigned k_close_range_cloexec = 1U << 2;  // CLOSE_RANGE_CLOEXEC, <linux/close_range.h>

}  // namespace

std::vector<int> open_descriptors(int from) {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) {
    return fds;
  }
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && fd >= from && fd != own) {
      fds.push_back(static_cast<int>(fd));
    }
  }
  ::closedir(dir);
  return fds;
}

void mark_close_on_exec(int from, const std::vector<int>& listed) {
  if (::syscall(SYS_close_range, static_cast<unsigned>(from), ~0U, k_close_range_cloexec) == 0) {
    return;
  }
  for (const int fd : listed) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) {
      ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
  }
}

}  // namespace launcher::supervisor
