#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "gcs/gcs_client.hpp"
#include "gcs/node_table.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// A node id the GCS can parse: exactly 28 bytes (kUniqueIDSize, src/ray/common/id.h). Made only
// from a node table row's id, never from text a user gave: a malformed id in DrainNode, a
// node-id selector or CheckAlive aborts the GCS (NodeID::FromBinary → RAY_CHECK).
class NodeId {
 public:
  static constexpr std::size_t k_size = 28;
  // nullopt unless `hex` is exactly 56 hex digits.
  static std::optional<NodeId> from_hex(std::string_view hex);
  const std::string& binary() const { return m_bytes; }
  std::string hex() const { return to_hex(m_bytes); }

 private:
  std::string m_bytes;
};

// What the calls below cost the GCS: calls made, and the protobuf payload bytes of their
// requests and replies (gRPC's 5-byte frame and HTTP/2 headers not counted).
struct CallCost {
  int rpcs = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
};

// The RPCs of a worker that watches its head and drains its own node, on `client`'s channel
// (one connection to the head for all of them). Each ends at `timeout`, or at once when `stop`
// is requested; a transport failure is the caller's to heal (client.reset_channel()).

// NodeInfoGcsService/GetClusterId (Ray 2.6+; UNIMPLEMENTED before): the cluster's id, raw bytes.
util::Result<std::string, RpcError> get_cluster_id(GcsClient& client, std::chrono::milliseconds timeout,
                                                   std::stop_token stop, CallCost* cost = nullptr);

// A node's rows by its id or by its name, in the layout the GCS's version filters on: a node
// selector (>= 2.49; an id is a map lookup on the GCS), Filters (2.36-2.48). An id is not sent to
// NodeFilter::none (<= 2.35 ignores the request and sends the whole table);
// a name is, as the empty request, and the caller picks the rows. Rows are matched by the caller
// too: a GCS that did not filter sends them all.
struct NodeMatch {
  std::optional<NodeId> id;  // else:
  std::string name;
};
util::Result<NodeTable, RpcError> get_nodes(GcsClient& client, const NodeMatch& match, NodeFilter filter,
                                            std::chrono::milliseconds timeout, std::stop_token stop,
                                            CallCost* cost = nullptr);

struct DrainAnswer {
  bool accepted = false;
  std::string rejection;  // the GCS's reason when not accepted (2.10+)
};

// AutoscalerStateService/DrainNode with reason PREEMPTION (Ray 2.9+; UNIMPLEMENTED before).
// `deadline_ms`: wall-clock ms (Unix epoch) by which the node will be gone.
util::Result<DrainAnswer, RpcError> drain_node(GcsClient& client, const NodeId& id, const std::string& message,
                                               std::int64_t deadline_ms, std::chrono::milliseconds timeout,
                                               std::stop_token stop);

// InternalKVGcsService/InternalKVGet: the value, or nullopt when the key is not there.
util::Result<std::optional<std::string>, RpcError> kv_get(GcsClient& client, const std::string& key,
                                                          const std::string& kv_namespace,
                                                          std::chrono::milliseconds timeout, std::stop_token stop);

// InternalKVGcsService/InternalKVPut, overwriting: `value` under `key` in `kv_namespace`.
util::Result<bool, RpcError> kv_put(GcsClient& client, const std::string& key, const std::string& value,
                                    const std::string& kv_namespace, std::chrono::milliseconds timeout,
                                    std::stop_token stop);

// InternalKVGcsService/InternalKVKeys: the keys of `kv_namespace` that start with `prefix`
// (the GCS's own order; empty when there are none).
util::Result<std::vector<std::string>, RpcError> kv_keys(GcsClient& client, const std::string& prefix,
                                                         const std::string& kv_namespace,
                                                         std::chrono::milliseconds timeout, std::stop_token stop);

}  // namespace launcher::gcs
