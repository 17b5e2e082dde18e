#pragma once
#include <functional>
#include <map>
#include <string>

#include "watch/nccl_ras_status.hpp"

namespace launcher::watch {

struct CollectiveVerdict {
  int communicators = 0;
  int waiting = 0;       // communicators waiting for some of their ranks
  int stuck = 0;         // of those, the ones with no progress across the polls
  std::string stuck_line;  // one line when a communicator was found stuck at this poll ("" otherwise)
  std::string info;        // one line when a stuck communicator moved again
};

// Stuck collectives seen in NCCL's RAS dumps, as a pure state machine: one status per poll in,
// a verdict out. A communicator whose ranks launched different numbers of operations, or from
// some of whose ranks no data came, waits for those ranks; one that stays so, unchanged, across
// `polls` polls is stuck: the leaders wait inside a collective the laggers never reach, until
// NCCL's own watchdog (10–30 minutes) ends the job. Communicators whose ranks agree are never
// called stuck, even when their counts stay still: that is also what an idle job looks like.
class CollectiveWatch {
 public:
  // `pod_of`: the pod of a node's IP ("" when unknown), to name pods beside RAS's addresses.
  explicit CollectiveWatch(int polls, std::function<std::string(const std::string& ip)> pod_of = {})
      : m_polls(polls), m_pod_of(std::move(pod_of)) {}

  CollectiveVerdict add(const RasStatus& status);

 private:
  struct Seen {
    std::string progress;
    int unchanged = 0;  // polls in a row it has waited the same way
    bool said = false;  // its stuck line was given
  };
  std::string describe(const RasComm& comm, const RasStatus& status) const;

  int m_polls;
  std::function<std::string(const std::string&)> m_pod_of;
  std::map<std::string, Seen> m_seen;  // by communicator hash
};

}  // namespace launcher::watch
