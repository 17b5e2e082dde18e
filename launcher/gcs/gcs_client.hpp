#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "gcs/auth_token.hpp"
#include "gcs/gcs_channel.hpp"
#include "gcs/node_table.hpp"
#include "util/result.hpp"

namespace grpc {
class Channel;
}

namespace launcher::gcs {

// The two GCS calls raylaunch makes, on one channel reused across calls. Every request is sent
// in the one shape every Ray 2.x accepts (ray-gcs-wire.md §0):
// - GetAllNodeInfo with an EMPTY request (0 bytes): the request layout changed incompatibly in
//   2.36 and again in 2.49, and only the empty request means "all nodes" everywhere;
// - CheckAlive with an EMPTY request: field 1 changed meaning in 2.49.
class GcsClient {
 public:
  GcsClient(std::string target, std::optional<AuthToken> token);
  ~GcsClient();
  GcsClient(const GcsClient&) = delete;
  GcsClient& operator=(const GcsClient&) = delete;

  const std::string& target() const { return m_target; }

  // Every node the GCS knows, ALIVE and DEAD; count them with count_alive(). Every call ends
  // at `timeout`, or at once (CANCELLED) when `stop` is requested.
  util::Result<NodeTable, RpcError> get_all_node_info(std::chrono::milliseconds timeout, std::stop_token stop = {});

  // Only the rows whose node_name is `node_name`, on Ray >= 2.49 (node_selectors, field 2);
  // older servers ignore field 2 (2.36-2.48 use 3 and 4, <= 2.35 none) and return every row,
  // so callers must still match rows themselves. Used by the worker readiness probe, which
  // 4,096 workers run every few seconds: on a new GCS each reply is one row, not the table.
  util::Result<NodeTable, RpcError> get_node_info_by_name(const std::string& node_name,
                                                         std::chrono::milliseconds timeout, std::stop_token stop = {});

  // "GCS is up": the Ray version string the GCS reports (e.g. "2.9.0").
  util::Result<std::string, RpcError> check_alive(std::chrono::milliseconds timeout, std::stop_token stop = {});

  // Drops the channel; the next call makes a fresh one (new DNS lookup, new connection, no
  // inherited gRPC backoff). Poll loops call this after an UNAVAILABLE.
  void reset_channel();

 private:
  struct Stub;
  Stub& stub();

  std::string m_target;
  std::optional<AuthToken> m_token;
  std::unique_ptr<Stub> m_stub;
};

// grpc.health.v1.Health/Check on one channel kept across calls: how the resident health
// endpoint asks its raylet, and (through health_check) the exec probe.
class HealthClient {
 public:
  explicit HealthClient(std::string target);
  ~HealthClient();
  HealthClient(const HealthClient&) = delete;
  HealthClient& operator=(const HealthClient&) = delete;

  // The ServingStatus of `service` ("" = the server as a whole; 1 = SERVING) or the error.
  util::Result<int, RpcError> check(const std::string& service, std::chrono::milliseconds timeout);

 private:
  struct Stub;
  std::string m_target;
  std::unique_ptr<Stub> m_stub;
};

// One HealthClient::check on a fresh channel.
util::Result<int, RpcError> health_check(const std::string& target, const std::string& service,
                                         std::chrono::milliseconds timeout);

}  // namespace launcher::gcs
