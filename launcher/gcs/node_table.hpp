#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace ray::rpc {
class GetAllNodeInfoReply;
class GetAllNodeAddressAndLivenessReply;
}  // namespace ray::rpc

namespace launcher::gcs {

// One row of the GCS node table, as raylaunch reports it (status, wait).
struct NodeEntry {
  std::string node_id_hex;  // 28-byte NodeID as 56 lowercase hex digits
  std::string node_name;    // `ray start --node-name`; raylaunch sets the pod hostname
  std::string address;      // node_manager_address: the node IP
  int node_manager_port = 0;
  bool alive = false;  // GcsNodeInfo.state == ALIVE
  bool is_head = false;
  std::uint64_t start_time_ms = 0;
  std::uint64_t end_time_ms = 0;  // set for DEAD nodes
  std::string death_reason;       // "UNEXPECTED_TERMINATION: health check failed" for DEAD nodes

  // What identifies a pod across restarts: node_name, else the IP, else the node id.
  const std::string& pod_key() const;
  // Registered by a raylet that started before `wall_ms` (an earlier `ray start` of the same pod).
  // start_time_ms is the raylet's own clock, the pod's; 0 before Ray 2.5: never told apart.
  bool started_before(std::uint64_t wall_ms) const { return start_time_ms != 0 && start_time_ms < wall_ms; }
};

// The decoded GetAllNodeInfo reply.
struct NodeTable {
  std::vector<NodeEntry> nodes;
  std::int64_t total = 0;  // reply.total (Ray 2.36+); 0 from older servers
  // False for GetAllNodeAddressAndLiveness rows: no node_name, so pods are told apart by IP, and
  // a restarted pod's stale row (old IP) counts until the GCS declares it DEAD.
  bool has_names = true;
};

// Decodes the rows of `reply` (the caller has checked `reply.status`). Text fields from the
// server (node names, addresses, death reasons) are kept as sent; renderers escape them.
NodeTable node_table_from_reply(const ray::rpc::GetAllNodeInfoReply& reply);

// The same for the lighter reply: id, address, port, state; has_names = false.
NodeTable node_table_from_light_reply(const ray::rpc::GetAllNodeAddressAndLivenessReply& reply);

// The barrier's view of a table. Counting happens here, on the client: an empty request returns
// DEAD nodes too on every Ray 2.x, and only Ray >= 2.49 could filter on the server.
struct AliveCount {
  int alive_entries = 0;  // ALIVE rows, duplicates included
  int dead_entries = 0;
  std::vector<std::string> alive_pods;  // distinct pod keys of ALIVE rows, sorted
  std::vector<std::string> duplicated;  // pods with more than one ALIVE row (a restarted pod)
  std::vector<std::string> missing;     // `expected` names not among alive_pods, in given order
  std::vector<std::string> unexpected;  // alive pods not in `expected` (empty if `expected` is)

  int distinct_alive() const { return static_cast<int>(alive_pods.size()); }
};

// Counts ALIVE rows once per pod: a restarted pod gets a new NodeID while its old row stays
// ALIVE until the GCS health check gives up (14 s on the same IP, 30-63 s when the IP is gone, on
// Ray 2.60.0 with its default health check: docs/compat.md), so rows are deduplicated by pod_key().
// `expected`: pod names the caller expects (may be empty: then nothing is "missing"); ignored for
// a table without names.
AliveCount count_alive(const NodeTable& table, const std::vector<std::string>& expected);

// "3/4 nodes alive; missing: training-2" (at most `max_names` names, then "and N more"); the
// missing are named only while fewer than `wanted` pods are alive, and ALIVE rows under names not
// expected are named after them ("alive under other names: 10.0.0.5").
std::string progress_line(const AliveCount& count, int wanted, std::size_t max_names = 10);

// "a, b, c and 4 more" for logs that must stay one line even with 4,096 names.
std::string name_list(const std::vector<std::string>& names, std::size_t max_names);

// Lowercase hex of arbitrary bytes (Ray prints NodeIDs this way).
std::string to_hex(const std::string& bytes);

}  // namespace launcher::gcs
