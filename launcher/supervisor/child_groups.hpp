#pragma once
#include <sys/types.h>

#include <map>
#include <optional>

#include "supervisor/lifecycle.hpp"
#include "supervisor/process_table.hpp"

namespace launcher::supervisor {

// The process group each child leads (its pid is the group's id), kept until the group is seen
// empty, and never signalled once it may belong to someone else: while the leader is unreaped
// (alive or a zombie) the id is surely ours; after that only while members are seen, and never
// when a process with the group's number exists (a reused id, see group_members).
class ChildGroups {
 public:
  void started(Child which, pid_t pid);
  void leader_reaped(Child which);
  bool leader_alive(Child which) const;

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
