#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "gcs/gcs_channel.hpp"
#include "gcs/gcs_client.hpp"
#include "gcs/node_table.hpp"
#include "net/host_port.hpp"
#include "net/staged_check.hpp"
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
  // present. The grace starts when a count by name (never a light one by IP, which a restarted
  // pod's stale row inflates) first reaches min_nodes, and again whenever one falls below; all
  // `nodes` present ends it at once; at least `min_nodes` present at the join timeout
  // end it then, the grace cut short (JoinResult::quorum_cut_short).
  int min_nodes = 0;
  std::chrono::milliseconds quorum_grace{60'000};
  // The waiting pod's own row counts only if its raylet started at or after `own_not_before_ms`
  // (wall ms: this `ray start`). A head restarted on its store (RocksDB or Redis) recovers its
  // dead raylet's row ALIVE, and it stays so until the GCS's health check gives up on it (14 s
  // on 2.60.0 for a pod back on its IP, docs/compat.md; Ray's health_check_* defaults in
  // ray_config_def.h allow about 20 s). Counted, the barrier
  // would pass before this pod's new raylet had registered and start the command on a node Ray
  // does not have yet. Rows without a start time (Ray < 2.5) always count.
  std::string own_name;
  std::uint64_t own_not_before_ms = 0;
};

struct JoinResult {
  util::WaitEnd end = util::WaitEnd::unreachable;  // ready: joined; not_ready: too few at the deadline
  bool quorum = false;                             // ready with fewer than `nodes` (a quorum)
  bool quorum_cut_short = false;                   // the quorum was taken at the join timeout, in its grace
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

// The barrier's production NodeSource on one reused channel, dropped after a transport failure
// so the next poll reconnects and re-resolves: GetAllNodeInfo (empty request) for tables with
// names, GetAllNodeAddressAndLiveness{ALIVE} for light polls where the GCS has it (Ray ≈2.51+;
// an UNIMPLEMENTED answer is remembered for the channel and the poll falls back at once).
class GcsNodeSource final : public NodeSource {
 public:
  GcsNodeSource(std::string target, Credentials credentials);

  util::Result<NodeTable, RpcError> poll(std::chrono::milliseconds timeout, std::stop_token stop) override;
  util::Result<NodeTable, RpcError> poll_light(std::chrono::milliseconds timeout, std::stop_token stop) override;
  void reset() override { m_client.reset_channel(); }
  std::string describe() const override { return "GCS at " + m_client.target(); }

 private:
  GcsClient m_client;
  bool m_said_fallback = false;
};

// A worker's check of its head, in stages: DNS (c-ares), TCP connect, then an empty CheckAlive,
// which every Ray 2.x GCS answers with its version. What waiting cannot fix is "refused", so the
// wait ends at once instead of at its deadline: UNAUTHENTICATED, and a TLS handshake that failed
// over certificates or TLS on one side only (RpcError::permanent()).
net::StagedCheck head_gcs_check(const net::HostPort& head, Credentials credentials);

// The head wait's pacing is net::staged_wait_options; its result's `answer` is the GCS's Ray
// version.
using HeadWaitResult = net::StagedWaitResult;

// Retries `attempt` (in production head_gcs_check(...).attempt) until the head's GCS answers,
// the deadline passes or `stop` is requested, logging the failing stage at every change and
// every 10 s. `what` names the head ("head GCS at training-0.training…:6379").
HeadWaitResult wait_for_head(const std::string& what, const net::AttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop);

}  // namespace launcher::gcs
