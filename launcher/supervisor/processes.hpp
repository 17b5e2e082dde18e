#pragma once
#include <sys/types.h>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "supervisor/lifecycle.hpp"

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

// The process group each child leads (its pid is the group's id), kept until the group is seen
// empty, and never signalled once it may belong to someone else: while the leader is unreaped
// (alive or a zombie) the id is surely ours; after that only while members are seen, and never
// when a process with the group's number exists (a reused id, see group_members).
class ChildGroups {
 public:
  void started(Child which, pid_t pid);
  void leader_reaped(Child which);

  // The group's live members now; none when it is gone (it is then forgotten).
  std::vector<ProcessInfo> members(Child which, const std::vector<ProcessInfo>& all);

  // `signo` to the leader (when `group` is false) or to the whole group; does nothing when
  // what it would reach is gone.
  void signal(Child which, int signo, bool group);

  // SIGKILL to every group that is still ours (the last resort after an internal error).
  void kill_all();

  std::optional<pid_t> pgid(Child which) const;

 private:
  struct Group {
    pid_t pgid = -1;
    bool leader_reaped = false;
  };
  bool still_ours(Child which);

  std::map<Child, Group> m_groups;
};

}  // namespace launcher::supervisor
