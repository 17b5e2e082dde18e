#include "supervisor/leftovers.hpp"

#include <dirent.h>
#include <unistd.h>

#include <string>

#include "util/host_fs.hpp"
#include "util/parse.hpp"

namespace launcher::supervisor {

namespace {

// "/proc/<pid>/stat": "pid (comm) S ppid …"; comm may hold spaces and parentheses, so the
// fields are read after the last ')'.
bool is_live_child(const std::string& stat, pid_t self) {
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 4 > stat.size()) {
    return false;
  }
  const char state = stat[close + 2];
  const auto words = util::split_words(std::string_view(stat).substr(close + 4));
  if (words.empty() || state == 'Z' || state == 'X') {
    return false;
  }
  const auto ppid = util::parse_int(words[0], 0, INT32_MAX);
  return ppid && *ppid == self;
}

}  // namespace

int count_child_processes(const std::set<pid_t>& known) {
  const pid_t self = ::getpid();
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) {
    return 0;
  }
  int count = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const auto pid = util::parse_int(entry->d_name, 1, INT32_MAX);
    if (!pid || known.count(static_cast<pid_t>(*pid)) != 0) {
      continue;
    }
    const auto stat = util::read_small_file("/proc/" + std::string(entry->d_name) + "/stat", 4096);
    if (stat && is_live_child(*stat, self)) {
      ++count;
    }
  }
  ::closedir(dir);
  return count;
}

}  // namespace launcher::supervisor
