#include "gcs/cluster_rpcs.hpp"

#include <grpcpp/grpcpp.h>

#include "gcs/gcs_client.hpp"
#include "ray_autoscaler.grpc.pb.h"
#include "ray_gcs.grpc.pb.h"
#include "ray_kv.grpc.pb.h"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// Ray's StatusCode::NotFound (src/ray/common/status.h), what InternalKVGet answers for a key
// that is not there.
constexpr int k_ray_not_found = 17;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

std::string one_line(const std::string& text) { return util::printable(util::redact(text)); }

RpcError transport_failure(GcsClient& client, const grpc::Status& status) {
  RpcError e{status.error_code(), 0, one_line(status.error_message()), ""};
  e.tls_problem = diagnose_tls_failure(e, client.target(), client.credentials().tls.get());
  return e;
}

RpcError ray_failure(const ray::rpc::GcsStatus& status) {
  return RpcError{0, status.code(), one_line(status.message()), ""};
}

// How a call whose reply carries Ray's own status failed: the transport's error, else Ray's;
// nullopt when it did not.
template <typename Reply>
std::optional<RpcError> failure_of(GcsClient& client, const grpc::Status& status, const Reply& reply) {
  if (!status.ok()) {
    return transport_failure(client, status);
  }
  if (reply.status().code() != 0) {
    return ray_failure(reply.status());
  }
  return std::nullopt;
}

// One unary call with the client's credentials and deadline, cancelled on `stop`, its cost
// counted. `call` is the stub method, bound.
template <typename Request, typename Reply, typename Call>
grpc::Status unary(GcsClient& client, const Request& request, Reply& reply, std::chrono::milliseconds timeout,
                   std::stop_token stop, CallCost* cost, Call call) {
  grpc::ClientContext context;
  prepare_call(context, timeout, client.credentials());
  const CancelOnStop cancel(context, std::move(stop));
  const grpc::Status status = call(&context, request, &reply);
  if (cost != nullptr) {
    cost->rpcs += 1;
    cost->bytes_sent += request.ByteSizeLong();
    cost->bytes_received += status.ok() ? reply.ByteSizeLong() : 0;
  }
  return status;
}

}  // namespace

std::optional<NodeId> NodeId::from_hex(std::string_view hex) {
  if (hex.size() != 2 * k_size) {
    return std::nullopt;
  }
  NodeId id;
  id.m_bytes.resize(k_size);
  for (std::size_t i = 0; i < k_size; ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    id.m_bytes[i] = static_cast<char>(hi * 16 + lo);
  }
  return id;
}

util::Result<std::string, RpcError> get_cluster_id(GcsClient& client, std::chrono::milliseconds timeout,
                                                   std::stop_token stop, CallCost* cost) {
  using R = util::Result<std::string, RpcError>;
  auto stub = ray::rpc::NodeInfoGcsService::NewStub(client.channel());
  const ray::rpc::GetClusterIdRequest request;
  ray::rpc::GetClusterIdReply reply;
  const grpc::Status status = unary(client, request, reply, timeout, std::move(stop), cost,
                                    [&](auto* c, const auto& q, auto* r) { return stub->GetClusterId(c, q, r); });
  if (const auto e = failure_of(client, status, reply)) {
    return R::failure(*e);
  }
  return reply.cluster_id();
}

util::Result<NodeTable, RpcError> get_nodes(GcsClient& client, const NodeMatch& match, NodeFilter filter,
                                            std::chrono::milliseconds timeout, std::stop_token stop, CallCost* cost) {
  using R = util::Result<NodeTable, RpcError>;
  // One layout, never two, as GcsClient::get_node_info_by_name: field 3 already has two meanings.
  ray::rpc::GetAllNodeInfoRequest request;
  switch (filter) {
    case NodeFilter::node_selectors: {
      auto* selector = request.add_node_selectors();
      if (match.id) {
        selector->set_node_id(match.id->binary());
      } else {
        selector->set_node_name(match.name);
      }
      break;
    }
    case NodeFilter::filters_v236:
      if (match.id) {
        request.mutable_filters_v236()->set_node_id(match.id->binary());
      } else {
        request.mutable_filters_v236()->set_node_name(match.name);
      }
      break;
    case NodeFilter::none:
      if (match.id) {
        return R::failure(RpcError{12, 0, "a GCS older than Ray 2.36 cannot look up one node by id", ""});
      }
      break;
  }
  auto stub = ray::rpc::NodeInfoGcsService::NewStub(client.channel());
  ray::rpc::GetAllNodeInfoReply reply;
  const grpc::Status status = unary(client, request, reply, timeout, std::move(stop), cost,
                                    [&](auto* c, const auto& q, auto* r) { return stub->GetAllNodeInfo(c, q, r); });
  if (const auto e = failure_of(client, status, reply)) {
    return R::failure(*e);
  }
  return node_table_from_reply(reply);
}

util::Result<DrainAnswer, RpcError> drain_node(GcsClient& client, const NodeId& id, const std::string& message,
                                               std::int64_t deadline_ms, std::chrono::milliseconds timeout,
                                               std::stop_token stop) {
  using R = util::Result<DrainAnswer, RpcError>;
  ray::rpc::autoscaler::DrainNodeRequest request;
  request.set_node_id(id.binary());
  request.set_reason(ray::rpc::autoscaler::DRAIN_NODE_REASON_PREEMPTION);
  request.set_reason_message(message);
  request.set_deadline_timestamp_ms(deadline_ms);
  auto stub = ray::rpc::autoscaler::AutoscalerStateService::NewStub(client.channel());
  ray::rpc::autoscaler::DrainNodeReply reply;
  const grpc::Status status = unary(client, request, reply, timeout, std::move(stop), nullptr,
                                    [&](auto* c, const auto& q, auto* r) { return stub->DrainNode(c, q, r); });
  if (!status.ok()) {
    return R::failure(transport_failure(client, status));
  }
  return DrainAnswer{reply.is_accepted(), one_line(reply.rejection_reason_message())};
}

util::Result<std::optional<std::string>, RpcError> kv_get(GcsClient& client, const std::string& key,
                                                          const std::string& kv_namespace,
                                                          std::chrono::milliseconds timeout, std::stop_token stop) {
  using R = util::Result<std::optional<std::string>, RpcError>;
  ray::rpc::InternalKVGetRequest request;
  request.set_key(key);
  request.set_namespace_(kv_namespace);
  auto stub = ray::rpc::InternalKVGcsService::NewStub(client.channel());
  ray::rpc::InternalKVGetReply reply;
  const grpc::Status status = unary(client, request, reply, timeout, std::move(stop), nullptr,
                                    [&](auto* c, const auto& q, auto* r) { return stub->InternalKVGet(c, q, r); });
  if (!status.ok()) {
    return R::failure(transport_failure(client, status));
  }
  if (reply.status().code() == k_ray_not_found) {
    return std::optional<std::string>{};
  }
  if (reply.status().code() != 0) {
    return R::failure(ray_failure(reply.status()));
  }
  return std::optional<std::string>{reply.value()};
}

util::Result<bool, RpcError> kv_put(GcsClient& client, const std::string& key, const std::string& value,
                                    const std::string& kv_namespace, std::chrono::milliseconds timeout,
                                    std::stop_token stop) {
  using R = util::Result<bool, RpcError>;
  ray::rpc::InternalKVPutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_overwrite(true);
  request.set_namespace_(kv_namespace);
  auto stub = ray::rpc::InternalKVGcsService::NewStub(client.channel());
  ray::rpc::InternalKVPutReply reply;
  const grpc::Status status = unary(client, request, reply, timeout, std::move(stop), nullptr,
                                    [&](auto* c, const auto& q, auto* r) { return stub->InternalKVPut(c, q, r); });
  if (const auto failed = failure_of(client, status, reply)) {
    return R::failure(*failed);
  }
  return reply.added();
}

util::Result<std::vector<std::string>, RpcError> kv_keys(GcsClient& client, const std::string& prefix,
                                                         const std::string& kv_namespace,
                                                         std::chrono::milliseconds timeout, std::stop_token stop) {
  using R = util::Result<std::vector<std::string>, RpcError>;
  ray::rpc::InternalKVKeysRequest request;
  request.set_prefix(prefix);
  request.set_namespace_(kv_namespace);
  auto stub = ray::rpc::InternalKVGcsService::NewStub(client.channel());
  ray::rpc::InternalKVKeysReply reply;
  const grpc::Status status = unary(client, request, reply, timeout, std::move(stop), nullptr,
                                    [&](auto* c, const auto& q, auto* r) { return stub->InternalKVKeys(c, q, r); });
  if (const auto failed = failure_of(client, status, reply)) {
    return R::failure(*failed);
  }
  return std::vector<std::string>(reply.results().begin(), reply.results().end());
}

}  // namespace launcher::gcs
