#include "gcs/gcs_client.hpp"

#include <google/protobuf/arena.h>
#include <grpcpp/grpcpp.h>

#include <functional>

#include "health.grpc.pb.h"
#include "ray_gcs.grpc.pb.h"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

struct GcsClient::Stub {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<ray::rpc::NodeInfoGcsService::Stub> node_info;
};

namespace {

// Text from the server or from gRPC goes into one-line errors, probe output and JSON log lines:
// keep it one line and free of quotes and backslashes (logging.hpp's convention).
std::string one_line(const std::string& text) { return util::printable(util::redact(text)); }

// Cancels the call when `stop` is requested: a SIGTERM ends a wait now, not at the deadline.
class CancelOnStop {
 public:
  CancelOnStop(grpc::ClientContext& context, std::stop_token stop)
      : m_callback(std::move(stop), [&context] { context.TryCancel(); }) {}

 private:
  std::stop_callback<std::function<void()>> m_callback;
};

RpcError from_status(const grpc::Status& status) {
  return RpcError{static_cast<int>(status.error_code()), 0, one_line(status.error_message())};
}

RpcError from_gcs_status(const ray::rpc::GcsStatus& status) {
  return RpcError{0, status.code(), one_line(status.message())};
}

}  // namespace

GcsClient::GcsClient(std::string target, std::optional<AuthToken> token)
    : m_target(std::move(target)), m_token(std::move(token)) {}

GcsClient::~GcsClient() = default;

GcsClient::Stub& GcsClient::stub() {
  if (!m_stub) {
    m_stub = std::make_unique<Stub>();
    m_stub->channel = make_channel(m_target);
    m_stub->node_info = ray::rpc::NodeInfoGcsService::NewStub(m_stub->channel);
  }
  return *m_stub;
}

void GcsClient::reset_channel() { m_stub.reset(); }

namespace {

util::Result<NodeTable, RpcError> call_get_all(ray::rpc::NodeInfoGcsService::Stub& stub,
                                              const ray::rpc::GetAllNodeInfoRequest& request,
                                              std::chrono::milliseconds timeout,
                                              const std::optional<AuthToken>& token, std::stop_token stop) {
  using R = util::Result<NodeTable, RpcError>;
  grpc::ClientContext context;
  prepare_call(context, timeout, token);
  const CancelOnStop cancel(context, std::move(stop));
  // The reply lives on an arena: a 4,096-node table is ~100,000 small allocations otherwise.
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 64 * 1024;
  arena_options.max_block_size = 4 * 1024 * 1024;
  google::protobuf::Arena arena(arena_options);
  auto* reply = google::protobuf::Arena::CreateMessage<ray::rpc::GetAllNodeInfoReply>(&arena);
  const grpc::Status status = stub.GetAllNodeInfo(&context, request, reply);
  if (!status.ok()) {
    return R::failure(from_status(status));
  }
  if (reply->status().code() != 0) {
    return R::failure(from_gcs_status(reply->status()));
  }
  return node_table_from_reply(*reply);
}

}  // namespace

util::Result<NodeTable, RpcError> GcsClient::get_all_node_info(std::chrono::milliseconds timeout,
                                                              std::stop_token stop) {
  const ray::rpc::GetAllNodeInfoRequest empty;  // serializes to 0 bytes
  return call_get_all(*stub().node_info, empty, timeout, m_token, std::move(stop));
}

util::Result<NodeTable, RpcError> GcsClient::get_node_info_by_name(const std::string& node_name,
                                                                  std::chrono::milliseconds timeout,
                                                                  std::stop_token stop) {
  // Only field 2 (node_selectors) is set: never `limit` or `state_filter`, whose numbers mean
  // other things on 2.36-2.48 (ray-gcs-wire.md §2.3).
  ray::rpc::GetAllNodeInfoRequest request;
  request.add_node_selectors()->set_node_name(node_name);
  return call_get_all(*stub().node_info, request, timeout, m_token, std::move(stop));
}

util::Result<std::string, RpcError> GcsClient::check_alive(std::chrono::milliseconds timeout, std::stop_token stop) {
  using R = util::Result<std::string, RpcError>;
  grpc::ClientContext context;
  prepare_call(context, timeout, m_token);
  const CancelOnStop cancel(context, std::move(stop));
  const ray::rpc::CheckAliveRequest empty;
  ray::rpc::CheckAliveReply reply;
  const grpc::Status status = stub().node_info->CheckAlive(&context, empty, &reply);
  if (!status.ok()) {
    return R::failure(from_status(status));
  }
  if (reply.status().code() != 0) {
    return R::failure(from_gcs_status(reply.status()));
  }
  return one_line(reply.ray_version());
}

struct HealthClient::Stub {
  std::unique_ptr<grpc::health::v1::Health::Stub> health;
};

HealthClient::HealthClient(std::string target) : m_target(std::move(target)) {}

HealthClient::~HealthClient() = default;

util::Result<int, RpcError> HealthClient::check(const std::string& service, std::chrono::milliseconds timeout) {
  using R = util::Result<int, RpcError>;
  if (!m_stub) {
    m_stub = std::make_unique<Stub>();
    m_stub->health = grpc::health::v1::Health::NewStub(make_channel(m_target));
  }
  grpc::ClientContext context;
  prepare_call(context, timeout, std::nullopt);  // raylets run gRPC's default service: no auth
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse reply;
  const grpc::Status status = m_stub->health->Check(&context, request, &reply);
  if (!status.ok()) {
    m_stub.reset();  // a fresh channel next time, as GcsClient does after a failure
    return R::failure(from_status(status));
  }
  return static_cast<int>(reply.status());
}

util::Result<int, RpcError> health_check(const std::string& target, const std::string& service,
                                         std::chrono::milliseconds timeout) {
  return HealthClient(target).check(service, timeout);
}

}  // namespace launcher::gcs
