#include <cstdio>

#include "commands.hpp"
#include "version.hpp"

namespace launcher {

int cmd_version() {
  std::printf("raylaunch %s (commit %s)\n", k_version, k_git_commit);
  return 0;
}

}  // namespace launcher
