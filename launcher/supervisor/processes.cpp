#include "supervisor/processes.hpp"

#include <dirent.h>
#include <csignal>

#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace {

// "/proc/<pid>/stat": "pid (comm) S ppid pgrp …"; comm may hold spaces and parentheses, so the
// fields are read after the last ')'.
bool parse_stat(const std::string& stat, ProcessInfo& out) {
  const auto open = stat.find('(');
  const auto close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open || close + 4 > stat.size()) {
    return false;
  }
  const char state = stat[close + 2];
  const auto words = util::split_words(std::string_view(stat).substr(close + 4));
  if (words.size() < 2 || state == 'Z' || state == 'X' || state == 'x') {
    return false;
  }
  const auto ppid = util::parse_int(words[0], 0, INT32_MAX);
  const auto pgid = util::parse_int(words[1], 0, INT32_MAX);
  if (!ppid || !pgid) {
    return false;
  }
  out.ppid = static_cast<pid_t>(*ppid);
  out.pgid = static_cast<pid_t>(*pgid);
  out.comm = stat.substr(open + 1, close - open - 1);
  return true;
}

}  // namespace

std::vector<ProcessInfo> list_processes() {
  std::vector<ProcessInfo> out;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) {
    return out;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const auto pid = util::parse_int(entry->d_name, 1, INT32_MAX);
    if (!pid) {
      continue;
    }
    const auto stat = util::read_small_file("/proc/" + std::string(entry->d_name) + "/stat", 4096);
    ProcessInfo info;
    info.pid = static_cast<pid_t>(*pid);
    if (stat && parse_stat(*stat, info)) {
      out.push_back(std::move(info));
    }
  }
  ::closedir(dir);
  return out;
}

std::vector<ProcessInfo> group_members(const std::vector<ProcessInfo>& all, pid_t pgid, bool leader_reaped) {
  std::vector<ProcessInfo> members;
  for (const ProcessInfo& p : all) {
    if (p.pgid != pgid) {
      continue;
    }
    if (leader_reaped && p.pid == pgid) {
      return {};  // a new process with the old number: our group is long gone
    }
    members.push_back(p);
  }
  return members;
}

std::vector<ProcessInfo> children_of(const std::vector<ProcessInfo>& all, pid_t parent, const std::set<pid_t>& known) {
  std::vector<ProcessInfo> children;
  for (const ProcessInfo& p : all) {
    if (p.ppid == parent && known.count(p.pid) == 0) {
      children.push_back(p);
    }
  }
  return children;
}

std::string describe_processes(const std::vector<ProcessInfo>& procs, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < procs.size() && i < max; ++i) {
    out += (out.empty() ? "" : ", ") + ("pid " + std::to_string(procs[i].pid) + " (" +
                                        util::printable(procs[i].comm, 32) + ")");
  }
  if (procs.size() > max) {
    out += ", …";
  }
  return out;
}

void ChildGroups::started(Child which, pid_t pid) { m_groups[which] = Group{pid, false}; }

void ChildGroups::leader_reaped(Child which) {
  if (auto it = m_groups.find(which); it != m_groups.end()) {
    it->second.leader_reaped = true;
  }
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
