#include <cstdio>

#include "app/commands.hpp"
#include "version.hpp"

namespace launcher {

int cmd_version(const Invocation& /*inv*/) {
  std::printf("raylaunch %s (commit %s)\n", k_version, k_git_commit);
  return 0;
}

}  // namespace launcher
