#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "gcs/own_node.hpp"
#include "util/clock.hpp"

namespace launcher::gcs {

struct DrainOptions {
  std::string node_name;                // this pod's hostname (Ray's --node-name)
  std::uint64_t not_before_ms = 0;      // when this container's `ray start` began (own_node_in)
  std::optional<OwnNode> known;         // the head watch's find, saving the lookup
  std::string message;                  // the drain's reason_message: what the GCS records
  std::chrono::milliseconds window{30'000};  // from now until raylaunch stops Ray
  std::int64_t now_wall_ms = 0;         // the wall clock now: the deadline is now + window
  std::chrono::milliseconds rpc_timeout{2'000};  // each RPC: a stalled GCS costs this, not the window
  std::chrono::milliseconds poll_every{500};     // how often the row is looked at while it drains
  // GCS fault tolerance is on (RAY_REDIS_ADDRESS): a head that stops answering may come back with
  // this cluster, so the deadline is waited out. Off, no head comes back: the drain ends at once.
  bool head_may_return = false;
};

enum class DrainOutcome {
  drained,      // accepted, and the raylet drained and exited before the deadline (row DEAD)
  deadline,     // accepted, and work still ran at the deadline: Ray is stopped now
  not_drained,  // no ALIVE row, DrainNode unserved (UNIMPLEMENTED), rejected or failed
  head_gone,    // accepted, then the head went away without fault tolerance: Ray is stopped now
};

struct DrainResult {
  DrainOutcome outcome = DrainOutcome::not_drained;
  bool unsupported = false;  // the GCS has no DrainNode (Ray < 2.9)
  bool rejected = false;     // the GCS answered is_accepted = false
  std::string line;          // one line for the log and the termination message
  std::chrono::milliseconds waited{0};
};

// Drains this pod's own node on its SIGTERM, as a spot interruption, a node drain or a
// scale-down asks: AutoscalerStateService/DrainNode with reason PREEMPTION and the deadline at
// the end of `window`; the GCS then schedules nothing new on the node, and its raylet exits by
// itself once idle (recorded AUTOSCALER_DRAIN_PREEMPTED with our message; local_resource_manager.cc).
// Then waits, looking at the node's row every `poll_every`, until it is DEAD or the deadline has
// passed (by a margin: a raylet SIGTERMed after the deadline records the drain's reason too,
// src/ray/raylet/main.cc; before it, "received SIGTERM" as an expected termination). A `known`
// node (the head watch's) is looked at first: one the GCS already holds DEAD, or dropped, is not
// drained (a drain of a DEAD node is accepted, and would read as one that drained idle). Every RPC
// is bounded by `rpc_timeout`; `stop` ends it at once. A head that stops answering (UNAVAILABLE,
// twice, the second time on a new connection) ends the drain at once unless `head_may_return`;
// with it the deadline is waited out. The node id is always a row's, validated.
DrainResult drain_own_node(GcsClient& client, const DrainOptions& options, util::Clock& clock, std::stop_token stop);

}  // namespace launcher::gcs
