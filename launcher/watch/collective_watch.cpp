#include "watch/collective_watch.hpp"

#include <set>

#include "util/strings.hpp"

namespace launcher::watch {

namespace {

constexpr std::size_t k_ranks_named = 8;  // a 512-rank job's line stays readable

}  // namespace

std::string CollectiveWatch::describe(const RasComm& comm, const RasStatus& status) const {
  const std::vector<RasRank> lagging = comm.lagging();
  std::vector<std::string> ranks;
  std::set<std::string> pods;
  for (const RasRank& r : lagging) {
    const std::string pod = m_pod_of && !r.host.empty() ? m_pod_of(r.host) : "";
    if (!pod.empty()) {
      pods.insert(util::printable(pod, 64));
    }
    if (ranks.size() < k_ranks_named) {
      ranks.push_back(describe_rank(r) + (pod.empty() ? "" : " = pod " + util::printable(pod, 64)));
    }
  }
  std::string line = "NCCL communicator " + comm.hash + (comm.size > 0 ? " (" + std::to_string(comm.size) + " ranks)" : "") +
                     " made no progress across " + std::to_string(m_polls) + " RAS polls, waiting for ";
  if (lagging.empty()) {
    line += "ranks the dump does not name";
  } else {
    line += "the lagging " + util::join(ranks, ", ");
    if (lagging.size() > ranks.size()) {
      line += " and " + std::to_string(lagging.size() - ranks.size()) + " more";
    }
  }
  if (comm.missing_count > 0) {
    line += "; no data from " + util::plural(comm.missing_count, "rank");
  }
  if (!pods.empty()) {
    line += "; pods: " + util::join(std::vector<std::string>(pods.begin(), pods.end()), ", ");
  }
  if (status.dead_processes > 0) {
    line += "; RAS considers " + util::plural(status.dead_processes, "process") + " dead" +
            (status.dead.empty() ? "" : " (" + util::join(status.dead, ", ") + ")");
  }
  return line;
}

CollectiveVerdict CollectiveWatch::add(const RasStatus& status) {
  CollectiveVerdict v;
  v.communicators = status.communicators;
  std::map<std::string, Seen> now;
  for (const RasComm& comm : status.comms) {
    if (!comm.waiting() || comm.finished) {
      continue;  // agreeing ranks, or a communicator on its way out: nothing to wait for
    }
    ++v.waiting;
    Seen seen = m_seen.count(comm.hash) > 0 ? m_seen[comm.hash] : Seen{};
    if (seen.unchanged > 0 && seen.progress == comm.progress) {
      ++seen.unchanged;
    } else {
      if (seen.said) {
        v.info = "NCCL communicator " + comm.hash + " moved again";
      }
      seen = Seen{comm.progress, 1, false};
    }
    if (seen.unchanged >= m_polls) {
      ++v.stuck;
      if (!seen.said && v.stuck_line.empty()) {
        seen.said = true;
        v.stuck_line = describe(comm, status);
      }
    }
    now[comm.hash] = std::move(seen);
  }
  for (const auto& [hash, seen] : m_seen) {
    if (seen.said && now.count(hash) == 0 && v.info.empty()) {
      v.info = "NCCL communicator " + hash + " is no longer waiting";
    }
  }
  m_seen = std::move(now);
  return v;
}

}  // namespace launcher::watch
