#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gcs/clock.hpp"
#include "gcs/gcs_channel.hpp"
#include "gcs/node_table.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// Where the barrier reads the node table from: the GCS in production, a script in unit tests.
class NodeSource {
 public:
  virtual ~NodeSource() = default;
  virtual util::Result<NodeTable, RpcError> poll(std::chrono::milliseconds timeout) = 0;
  // Called after a failed poll: the next poll should start from a fresh connection.
  virtual void reset() {}
  // "GCS at training-0.training.ml.svc.cluster.local:6379", for log lines.
  virtual std::string describe() const = 0;
};

struct JoinOptions {
  int nodes = 1;                            // distinct ALIVE pods to wait for
  std::vector<std::string> expected_names;  // pod names, to name the missing; may be empty
  std::chrono::milliseconds timeout{300'000};
  // Pacing: polls start at least `min_interval` apart: at most 4 in any second, with 25 ms of
  // margin for scheduling jitter on a busy node. Slower when replies are slow (10x the last
  // RPC's duration); failures retried from `min_interval` doubling to `max_backoff`.
  std::chrono::milliseconds min_interval{275};
  std::chrono::milliseconds max_backoff{2'000};
  std::chrono::milliseconds rpc_timeout{5'000};
  std::chrono::milliseconds progress_every{10'000};  // log at every change, and this often
};

enum class JoinOutcome {
  joined,       // `nodes` distinct pods were ALIVE
  timed_out,    // the GCS answered, but too few pods were ALIVE at the deadline (exit 75)
  unreachable,  // the GCS did not answer the last poll before the deadline (exit 69)
  rejected,     // the GCS refused our credentials (UNAUTHENTICATED): retrying cannot help
};

struct JoinResult {
  JoinOutcome outcome = JoinOutcome::timed_out;
  AliveCount last_count;             // from the last answer (empty if none)
  bool answered = false;             // the GCS answered at least once
  std::optional<RpcError> last_error;
  int polls = 0;
  std::chrono::milliseconds elapsed{0};
  std::string reason;                // one line for the user when not joined
};

// Polls `source` until `options.nodes` distinct pods are ALIVE or the deadline passes, logging
// progress through spdlog ("3/4 nodes alive; missing: training-2") at every change and every
// `progress_every`. Survives an unreachable, restarting, slow or not-yet-resolvable GCS.
JoinResult wait_for_nodes(NodeSource& source, const JoinOptions& options, Clock& clock);

}  // namespace launcher::gcs
