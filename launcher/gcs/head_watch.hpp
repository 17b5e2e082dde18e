#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "gcs/own_node.hpp"
#include "util/clock.hpp"

namespace launcher::gcs {

// What a worker can learn about its head from the head's GCS, cheaply and often.
enum class HeadState {
  unknown,    // no usable answer this time (unreachable, slow, not registered yet): look again
  ok,         // the same cluster, and this node's row is ALIVE in it
  replaced,   // the GCS answers with another cluster id: the head came back without fault
              // tolerance, as a new cluster this node is not part of
  node_dead,  // this node's row is DEAD (or gone) in the head's GCS: Ray gave up on it
};

struct HeadCheck {
  HeadState state = HeadState::unknown;
  std::string line;           // one line: what was found
  bool registering = false;   // unknown only because this raylet has not registered yet
};

// One look at the head per check(), on one channel kept open: the cluster id (GetClusterId,
// Ray 2.6+: a few dozen bytes), then this node's own row (found once by name; then by its id, a
// map lookup on a Ray >= 2.49 GCS: one row, whatever the cluster's size). Once both are known on
// such a GCS a look is the row alone, and the cluster id is asked again only when the row is not
// ALIVE (a new cluster has no row of this node's id): one RPC a look. When the head is
// unreachable the channel is dropped and the next look relearns the version. Before
// Ray 2.49 a lookup by id tests every row of the GCS's table (2.36-2.48) or returns all of them
// (<= 2.35): N watchers would cost the GCS O(N²) a look, so there the cluster id alone is watched,
// and on Ray < 2.6, which has no cluster id either, nothing is.
class HeadWatch {
 public:
  // `not_before_ms`: when this container's `ray start` began (wall-clock ms): older rows of the
  // same name are an earlier container's.
  HeadWatch(GcsClient& client, std::string node_name, std::uint64_t not_before_ms);

  HeadCheck check(std::chrono::milliseconds timeout, std::stop_token stop);

  // This node, once a look found its row ALIVE (the drain reuses it).
  const std::optional<OwnNode>& own() const { return m_own; }
  const CallCost& cost() const { return m_cost; }

 private:
  HeadCheck cluster_id(std::chrono::milliseconds timeout, std::stop_token stop);
  HeadCheck own_row(std::chrono::milliseconds timeout, std::stop_token stop);
  HeadCheck failed(const RpcError& e, const std::string& what);

  GcsClient& m_client;
  std::string m_name;
  std::uint64_t m_not_before_ms = 0;
  std::optional<std::string> m_cluster_id;  // the first one seen
  bool m_no_cluster_id = false;             // the GCS has no GetClusterId (Ray < 2.6)
  bool m_said_unfiltered = false;           // said once: Ray < 2.49, no row lookup
  std::optional<OwnNode> m_own;
  CallCost m_cost;
};

struct WatchOptions {
  std::chrono::milliseconds period{2'000};
  std::chrono::milliseconds rpc_timeout{2'000};  // each look's RPCs together, at most the period
  // After every look (on the watching thread): how /metrics counts what the watch costs.
  std::function<void(const CallCost&)> on_look;
};

struct WatchEnd {
  HeadState state = HeadState::unknown;  // replaced or node_dead; unknown when stopped
  std::string reason;
};

// Looks every `period` until the head is replaced or this node is DEAD (then returns why) or
// `stop` is requested. Transient trouble (the head unreachable, restarting with fault
// tolerance) is logged when it starts and when it ends, and only watched: the raylet's own
// reconnect timeout ends a worker whose head stays away.
WatchEnd watch_head(HeadWatch& watch, const WatchOptions& options, util::Clock& clock, std::stop_token stop);

}  // namespace launcher::gcs
