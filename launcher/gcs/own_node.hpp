#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "gcs/cluster_rpcs.hpp"

namespace launcher::gcs {

// This pod's own raylet as the head's GCS knows it.
struct OwnNode {
  NodeId id;
  std::string raylet_address;  // "ip:port", as the GCS keys its address map
  std::uint64_t start_time_ms = 0;
};

// The row of this pod's raylet among the rows of `table` named `name` (Ray's --node-name, the pod
// hostname): the newest ALIVE one — a restarted container's old row stays ALIVE until the GCS's
// health checks give up (~20 s) — and only with a well-formed id. `not_before_ms` (wall-clock ms;
// 0: any): rows of raylets started earlier are not this container's (the old row of a restarted
// container can be the only ALIVE one until this raylet registers). nullopt when there is none.
std::optional<OwnNode> own_node_in(const NodeTable& table, const std::string& name, std::uint64_t not_before_ms = 0);

// Why a lookup found no ALIVE row: "not registered in the head's GCS" or "DEAD in … (reason)".
std::string no_own_node_line(const NodeTable& table, const std::string& name);

// The lookup itself: the GCS's version first when this channel has not learnt it (an empty
// CheckAlive), then the rows named `name` in the layout that version filters on (one row on Ray
// >= 2.36, the whole table on older ones). `table` receives what came back.
util::Result<std::optional<OwnNode>, RpcError> find_own_node(GcsClient& client, const std::string& name,
                                                             std::uint64_t not_before_ms,
                                                             std::chrono::milliseconds timeout, std::stop_token stop,
                                                             NodeTable* table = nullptr, CallCost* cost = nullptr);

}  // namespace launcher::gcs
