#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "gcs/gcs_channel.hpp"
#include "gcs/node_table.hpp"
#include "util/clock.hpp"
#include "util/paced_wait.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// Where the barrier reads the node table from: the GCS in production, a script in unit tests.
class NodeSource {
 public:
  virtual ~NodeSource() = default;
  // The table with names (GetAllNodeInfo): what "joined" is decided on.
  virtual util::Result<NodeTable, RpcError> poll(std::chrono::milliseconds timeout, std::stop_token stop) = 0;
  // A cheaper look, maybe without names (NodeTable::has_names false: ALIVE addresses only, Ray
  // ≈2.51+'s GetAllNodeAddressAndLiveness); by default the same as poll().
  virtual util::Result<NodeTable, RpcError> poll_light(std::chrono::milliseconds timeout, std::stop_token stop) {
    return poll(timeout, std::move(stop));
  }
  // Called after a failed poll: the next poll should start from a fresh connection.
  virtual void reset() {}
  // "GCS at training-0.training.ml.svc.cluster.local:6379", for log lines.
  virtual std::string describe() const = 0;
};

struct JoinOptions {
  int nodes = 1;                            // distinct ALIVE pods to wait for
  std::vector<std::string> expected_names;  // pod names, to name the missing; may be empty
  // Deadline and pacing: polls at least 275 ms apart — at most 4 in any second, with 25 ms of
  // margin for scheduling jitter on a busy node — and slower when replies are slow.
  util::WaitOptions wait;
  // Called with every answer (on the waiting thread): how `run` keeps /metrics current.
  std::function<void(const AliveCount&)> on_answer;
  // A quorum (0: off, exactly `nodes`): once at least `min_nodes` pods have been ALIVE for
  // `quorum_grace` — torchrun's last call after --nnodes=MIN:MAX — the barrier is done with those
  // present. The grace starts when the count first reaches min_nodes, and again whenever it falls
  // below; all `nodes` present ends it at once.
  int min_nodes = 0;
  std::chrono::milliseconds quorum_grace{60'000};
};

struct JoinResult {
  util::WaitEnd end = util::WaitEnd::unreachable;  // ready: joined; not_ready: too few at the deadline
  bool quorum = false;                             // ready with fewer than `nodes` (a quorum)
  AliveCount last_count;                           // from the last answer (empty if none)
  std::optional<AliveCount> last_named;            // from the last answer with names: who is missing
  int light_polls = 0;                             // polls answered by the light call
  bool answered = false;                           // the GCS answered at least once
  std::optional<RpcError> last_error;
  int polls = 0;
  std::chrono::milliseconds elapsed{0};
  std::string reason;  // one line for the user when not joined
};

// Polls `source` until `options.nodes` distinct pods are ALIVE, the deadline passes or `stop`
// is requested (within one poll interval: sleeps end and calls are cancelled), logging
// progress ("3/4 nodes alive; missing: training-2") at every change and every 10 s. Survives
// an unreachable, restarting, slow or not-yet-resolvable GCS; stops at once when the GCS
// refuses our credentials (UNAUTHENTICATED) or the TLS handshake cannot succeed.
// Polls are light (poll_light) except the first, one every 10 s (names for the log), and the
// one that decides: a light table counts pods by IP, and a restarted pod's stale row would count
// twice, so "joined" is only ever read from a table with names, asked in the same attempt.
JoinResult wait_for_nodes(NodeSource& source, const JoinOptions& options, util::Clock& clock, std::stop_token stop);

}  // namespace launcher::gcs
