#pragma once
#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace launcher::supervisor {

// One live process, as /proc/<pid>/stat shows it.
struct ProcessInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  std::string comm;
};

// Every live process this process can see (zombies and dead ones left out). In a pod's own PID
// namespace that is the pod; elsewhere, the machine.
std::vector<ProcessInfo> list_processes();

// The live processes in group `pgid`. After its leader was reaped, a process whose pid is
// `pgid` can only be a new one that reused the number (the kernel keeps a group's id taken
// while any member lives): then the group is gone, and this answers none rather than a
// stranger's group.
std::vector<ProcessInfo> group_members(const std::vector<ProcessInfo>& all, pid_t pgid, bool leader_reaped);

// The live children of `parent` (processes reparented to raylaunch as PID 1, or as a child
// subreaper, when their parent exited) that are not in `known`.
std::vector<ProcessInfo> children_of(const std::vector<ProcessInfo>& all, pid_t parent, const std::set<pid_t>& known);

// "pid 42 (sleep), pid 43 (python3)": the first `max` of `procs`, then ", …".
std::string describe_processes(const std::vector<ProcessInfo>& procs, std::size_t max = 3);

}  // namespace launcher::supervisor
