#include "supervisor/child_groups.hpp"

#include <csignal>

namespace launcher::supervisor {

void ChildGroups::started(Child which, pid_t pid) { m_groups[which] = Group{pid, false}; }

void ChildGroups::leader_reaped(Child which) {
  if (auto it = m_groups.find(which); it != m_groups.end()) {
    it->second.leader_reaped = true;
  }
}

bool ChildGroups::leader_alive(Child which) const {
  const auto it = m_groups.find(which);
  return it != m_groups.end() && !it->second.leader_reaped;
}

std::optional<pid_t> ChildGroups::pgid(Child which) const {
  const auto it = m_groups.find(which);
  return it == m_groups.end() ? std::nullopt : std::optional<pid_t>(it->second.pgid);
}

std::vector<ProcessInfo> ChildGroups::members(Child which, const std::vector<ProcessInfo>& all) {
  const auto it = m_groups.find(which);
  if (it == m_groups.end()) {
    return {};
  }
  auto found = group_members(all, it->second.pgid, it->second.leader_reaped);
  if (found.empty() && it->second.leader_reaped) {
    m_groups.erase(it);  // gone for good: its id may be anyone's from now on
  }
  return found;
}

bool ChildGroups::still_ours(Child which) {
  const auto it = m_groups.find(which);
  if (it == m_groups.end()) {
    return false;
  }
  return !it->second.leader_reaped || !members(which, list_processes()).empty();
}

void ChildGroups::signal(Child which, int signo, bool group) {
  const auto it = m_groups.find(which);
  if (it == m_groups.end()) {
    return;
  }
  const pid_t pgid = it->second.pgid;
  if (!group) {
    if (!it->second.leader_reaped) {
      ::kill(pgid, signo);
    }
    return;
  }
  if (still_ours(which)) {
    ::kill(-pgid, signo);
  }
}

void ChildGroups::kill_all() {
  for (const Child which : {Child::command, Child::ray, Child::ray_stop}) {
    signal(which, SIGKILL, false);
    signal(which, SIGKILL, true);
  }
}

}  // namespace launcher::supervisor
