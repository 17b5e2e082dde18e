#pragma once
#include <sys/types.h>

#include <set>

namespace launcher::supervisor {

// How many live children this process has besides `known`: processes reparented to raylaunch
// (as PID 1, or as a child subreaper) when their parent exited — after `ray start` exits, Ray
// processes that outlived it. Read from /proc/<pid>/stat; zombies do not count.
int count_child_processes(const std::set<pid_t>& known);

}  // namespace launcher::supervisor
