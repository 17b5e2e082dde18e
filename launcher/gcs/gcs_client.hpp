#pragma once
#include <grpcpp/client_context.h>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "gcs/gcs_channel.hpp"
#include "gcs/node_table.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// The version a GCS reports in CheckAliveReply.ray_version ("2.40.0", master's "3.0.0.dev0").
struct RayVersion {
  int major = 0;
  int minor = 0;
  bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};

// nullopt unless `text` starts with "<major>.<minor>" (digits; anything may follow).
std::optional<RayVersion> parse_ray_version(std::string_view text);

// Which GetAllNodeInfoRequest layout the GCS filters on by node name (ray-gcs-wire.md §2.3):
enum class NodeFilter {
  none,            // <= 2.35, or a version we cannot read: the request is ignored, every row returns
  filters_v236,    // 2.36-2.48: `optional Filters filters = 4`, Filters.node_name = 3
  node_selectors,  // >= 2.49: `repeated NodeSelector node_selectors = 2`, NodeSelector.node_name = 2
};

// The layout to send to a GCS of `version` (nullopt: unknown, hence `none`: the one request that
// is right everywhere, at the price of the whole table).
NodeFilter node_filter_for(const std::optional<RayVersion>& version);

// "node_selectors (Ray >= 2.49)", for logs and benchmarks.
const char* describe(NodeFilter filter);

// The GCS calls raylaunch makes, on one channel reused across calls. Requests are sent in shapes
// no Ray 2.x misreads (ray-gcs-wire.md §0, §2.3):
// - GetAllNodeInfo EMPTY (0 bytes) for the whole table: only the empty request means "all
//   nodes" everywhere; the one-pod lookup sends the layout of the GCS's own version;
// - CheckAlive EMPTY: its field 1 changed meaning in 2.49, and a malformed node id in it aborts a
//   2.49+ GCS (NodeID::FromBinary → RAY_CHECK). Node ids and addresses never go there.
class GcsClient {
 public:
  GcsClient(std::string target, Credentials credentials);
  ~GcsClient();
  GcsClient(const GcsClient&) = delete;
  GcsClient& operator=(const GcsClient&) = delete;

  const std::string& target() const { return m_target; }
  const Credentials& credentials() const { return m_credentials; }

  // Every node the GCS knows, ALIVE and DEAD; count them with count_alive(). Every call ends
  // at `timeout`, or at once (CANCELLED) when `stop` is requested.
  util::Result<NodeTable, RpcError> get_all_node_info(std::chrono::milliseconds timeout, std::stop_token stop = {});

  // The rows whose node_name is `node_name`, asked in the layout `filter` (node_filter_for() of the
  // GCS's version): one row's worth of reply where the GCS filters, the whole table where it
  // cannot (NodeFilter::none), so callers still match rows themselves.
  util::Result<NodeTable, RpcError> get_node_info_by_name(const std::string& node_name, NodeFilter filter,
                                                          std::chrono::milliseconds timeout, std::stop_token stop = {});

  // ALIVE nodes from the lighter GetAllNodeAddressAndLiveness (Ray ≈2.51+): addresses and node ids,
  // no names (NodeTable::has_names is false). An older GCS answers UNIMPLEMENTED; the answer is
  // remembered for this channel (light_unsupported()), so callers ask once, not on every poll.
  util::Result<NodeTable, RpcError> get_alive_node_addresses(std::chrono::milliseconds timeout,
                                                             std::stop_token stop = {});
  bool light_unsupported() const;

  // "GCS is up": the Ray version string the GCS reports (e.g. "2.9.0"), also kept for version().
  util::Result<std::string, RpcError> check_alive(std::chrono::milliseconds timeout, std::stop_token stop = {});

  // What the last check_alive on this channel learnt; nullopt before one, after reset_channel(),
  // or when the GCS reports a version that does not parse.
  std::optional<RayVersion> version() const;

  // The channel the calls above use (made now if there is none), for the RPCs of Ray's other
  // services on the same connection (gcs/cluster_rpcs.hpp).
  std::shared_ptr<grpc::Channel> channel();

  // Drops the channel and what was learnt on it; the next call makes a fresh one (new DNS
  // lookup, new connection, no inherited gRPC backoff). Poll loops call this after a transport
  // failure.
  void reset_channel();

 private:
  struct Stub;
  Stub& stub();
  RpcError failure(int code, const std::string& message);

  std::string m_target;
  Credentials m_credentials;
  std::unique_ptr<Stub> m_stub;
};

// grpc.health.v1.Health/Check on one channel kept across calls: how a worker's liveness probe
// asks its own raylet (gcs/probe.cpp), for `raylaunch probe liveness` and the resident health
// endpoint alike. Raylets run gRPC's default health service: no token, but TLS when Ray's
// servers use it.
class HealthClient {
 public:
  HealthClient(std::string target, std::shared_ptr<const TlsCredentials> tls);
  ~HealthClient();
  HealthClient(const HealthClient&) = delete;
  HealthClient& operator=(const HealthClient&) = delete;

  // The ServingStatus of `service` ("" = the server as a whole; 1 = SERVING) or the error.
  util::Result<int, RpcError> check(const std::string& service, std::chrono::milliseconds timeout);

 private:
  struct Stub;
  std::string m_target;
  std::shared_ptr<const TlsCredentials> m_tls;
  std::unique_ptr<Stub> m_stub;
};

// Cancels a call when `stop` is requested: a SIGTERM ends a wait now, not at the deadline.
class CancelOnStop {
 public:
  CancelOnStop(grpc::ClientContext& context, std::stop_token stop)
      : m_callback(std::move(stop), [&context] { context.TryCancel(); }) {}

 private:
  std::stop_callback<std::function<void()>> m_callback;
};

// For a failed call to `target`: "" when the failure may heal by waiting (nothing listens yet, a
// restart, a slow server), else one sentence saying what in the TLS setup is wrong and how to
// fix it. `tls` is what this client used (null: plaintext).
std::string diagnose_tls_failure(const RpcError& error, const std::string& target, const TlsCredentials* tls);

}  // namespace launcher::gcs
