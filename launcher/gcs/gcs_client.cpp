#include "gcs/gcs_client.hpp"

#include <google/protobuf/arena.h>
#include <grpcpp/grpcpp.h>
#include <charconv>
#include <functional>

#include "health.grpc.pb.h"
#include "ray_gcs.grpc.pb.h"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// Reads digits at `text` into `out`; the rest of `text` after them.
std::optional<std::string_view> number(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end == text.data()) {
    return std::nullopt;
  }
  return text.substr(static_cast<std::size_t>(end - text.data()));
}

}  // namespace

std::optional<RayVersion> parse_ray_version(std::string_view text) {
  RayVersion v;
  const auto rest = number(text, v.major);
  if (!rest || rest->empty() || rest->front() != '.' || !number(rest->substr(1), v.minor)) {
    return std::nullopt;
  }
  return v;
}

NodeFilter node_filter_for(const std::optional<RayVersion>& version) {
  if (!version) {
    return NodeFilter::none;
  }
  if (version->at_least(2, 49)) {
    return NodeFilter::node_selectors;  // #55115; master reports 3.0.0.dev0
  }
  if (version->at_least(2, 36)) {
    return NodeFilter::filters_v236;  // #47213
  }
  return NodeFilter::none;
}

const char* describe(NodeFilter filter) {
  switch (filter) {
    case NodeFilter::none:
      return "no filter (Ray <= 2.35: the whole table)";
    case NodeFilter::filters_v236:
      return "filters.node_name (Ray 2.36-2.48)";
    case NodeFilter::node_selectors:
      return "node_selectors.node_name (Ray >= 2.49)";
  }
  return "?";
}

// Everything learnt on one channel goes with it: a new channel may reach a new (upgraded) GCS.
struct GcsClient::Stub {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<ray::rpc::NodeInfoGcsService::Stub> node_info;
  std::optional<RayVersion> version;
  bool light_unimplemented = false;
};

namespace {

// Text from the server or from gRPC goes into one-line errors, probe output and JSON log lines:
// keep it one line and free of quotes and backslashes (app/process_setup.hpp's logging convention).
std::string one_line(const std::string& text) {
  return util::printable(util::redact(text));
}

RpcError from_gcs_status(const ray::rpc::GcsStatus& status) {
  return RpcError{0, status.code(), one_line(status.message()), ""};
}

// A reply arena: a 4,096-node table is ~100,000 small allocations otherwise.
google::protobuf::ArenaOptions arena_options() {
  google::protobuf::ArenaOptions o;
  o.start_block_size = 64 * 1024;
  o.max_block_size = 4 * 1024 * 1024;
  return o;
}

}  // namespace

GcsClient::GcsClient(std::string target, Credentials credentials)
    : m_target(std::move(target)), m_credentials(std::move(credentials)) {}

GcsClient::~GcsClient() = default;

GcsClient::Stub& GcsClient::stub() {
  if (!m_stub) {
    m_stub = std::make_unique<Stub>();
    m_stub->channel = make_channel(m_target, m_credentials.tls.get());
    m_stub->node_info = ray::rpc::NodeInfoGcsService::NewStub(m_stub->channel);
  }
  return *m_stub;
}

void GcsClient::reset_channel() {
  m_stub.reset();
}

std::shared_ptr<grpc::Channel> GcsClient::channel() {
  return stub().channel;
}

std::optional<RayVersion> GcsClient::version() const {
  return m_stub ? m_stub->version : std::nullopt;
}

bool GcsClient::light_unsupported() const {
  return m_stub && m_stub->light_unimplemented;
}

RpcError GcsClient::failure(int code, const std::string& message) {
  RpcError e{code, 0, one_line(message), ""};
  e.tls_problem = diagnose_tls_failure(e, m_target, m_credentials.tls.get());
  return e;
}

util::Result<NodeTable, RpcError> GcsClient::get_all_node_info(std::chrono::milliseconds timeout,
                                                               std::stop_token stop) {
  // No filter: the request is empty (serializes to 0 bytes) and the GCS sends its whole table.
  return get_node_info_by_name("", NodeFilter::none, timeout, std::move(stop));
}

util::Result<NodeTable, RpcError> GcsClient::get_node_info_by_name(const std::string& node_name, NodeFilter filter,
                                                                   std::chrono::milliseconds timeout,
                                                                   std::stop_token stop) {
  using R = util::Result<NodeTable, RpcError>;
  // One layout, never two: a field the GCS's version does not define is one a later Ray may
  // give another meaning (field 3 already has two).
  ray::rpc::GetAllNodeInfoRequest request;
  switch (filter) {
    case NodeFilter::node_selectors:
      request.add_node_selectors()->set_node_name(node_name);
      break;
    case NodeFilter::filters_v236:
      request.mutable_filters_v236()->set_node_name(node_name);
      break;
    case NodeFilter::none:
      break;
  }
  grpc::ClientContext context;
  prepare_call(context, timeout, m_credentials);
  const CancelOnStop cancel(context, std::move(stop));
  google::protobuf::Arena arena(arena_options());
  auto* reply = google::protobuf::Arena::CreateMessage<ray::rpc::GetAllNodeInfoReply>(&arena);
  const grpc::Status status = stub().node_info->GetAllNodeInfo(&context, request, reply);
  if (!status.ok()) {
    return R::failure(failure(status.error_code(), status.error_message()));
  }
  if (reply->status().code() != 0) {
    return R::failure(from_gcs_status(reply->status()));
  }
  return node_table_from_reply(*reply);
}

util::Result<NodeTable, RpcError> GcsClient::get_alive_node_addresses(std::chrono::milliseconds timeout,
                                                                      std::stop_token stop) {
  using R = util::Result<NodeTable, RpcError>;
  Stub& s = stub();
  if (s.light_unimplemented) {
    return R::failure(RpcError{12, 0, "GetAllNodeAddressAndLiveness (Ray >= 2.51) is not served here", ""});
  }
  ray::rpc::GetAllNodeAddressAndLivenessRequest request;
  request.set_state_filter(ray::rpc::GcsNodeInfo::ALIVE);  // the same number (3) since the RPC exists
  grpc::ClientContext context;
  prepare_call(context, timeout, m_credentials);
  const CancelOnStop cancel(context, std::move(stop));
  google::protobuf::Arena arena(arena_options());
  auto* reply = google::protobuf::Arena::CreateMessage<ray::rpc::GetAllNodeAddressAndLivenessReply>(&arena);
  const grpc::Status status = s.node_info->GetAllNodeAddressAndLiveness(&context, request, reply);
  if (!status.ok()) {
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      s.light_unimplemented = true;
    }
    return R::failure(failure(status.error_code(), status.error_message()));
  }
  if (reply->status().code() != 0) {
    return R::failure(from_gcs_status(reply->status()));
  }
  return node_table_from_light_reply(*reply);
}

util::Result<std::string, RpcError> GcsClient::check_alive(std::chrono::milliseconds timeout, std::stop_token stop) {
  using R = util::Result<std::string, RpcError>;
  grpc::ClientContext context;
  prepare_call(context, timeout, m_credentials);
  const CancelOnStop cancel(context, std::move(stop));
  const ray::rpc::CheckAliveRequest empty;
  ray::rpc::CheckAliveReply reply;
  Stub& s = stub();
  const grpc::Status status = s.node_info->CheckAlive(&context, empty, &reply);
  if (!status.ok()) {
    return R::failure(failure(status.error_code(), status.error_message()));
  }
  if (reply.status().code() != 0) {
    return R::failure(from_gcs_status(reply.status()));
  }
  s.version = parse_ray_version(reply.ray_version());
  return one_line(reply.ray_version());
}

struct HealthClient::Stub {
  std::unique_ptr<grpc::health::v1::Health::Stub> health;
};

HealthClient::HealthClient(std::string target, std::shared_ptr<const TlsCredentials> tls)
    : m_target(std::move(target)), m_tls(std::move(tls)) {}

HealthClient::~HealthClient() = default;

util::Result<int, RpcError> HealthClient::check(const std::string& service, std::chrono::milliseconds timeout) {
  using R = util::Result<int, RpcError>;
  if (!m_stub) {
    m_stub = std::make_unique<Stub>();
    m_stub->health = grpc::health::v1::Health::NewStub(make_channel(m_target, m_tls.get()));
  }
  grpc::ClientContext context;
  prepare_call(context, timeout, Credentials{});  // raylets run gRPC's default service: no token
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse reply;
  const grpc::Status status = m_stub->health->Check(&context, request, &reply);
  if (!status.ok()) {
    m_stub.reset();  // a fresh channel next time, as GcsClient does after a failure
    RpcError e{status.error_code(), 0, one_line(status.error_message()), ""};
    e.tls_problem = diagnose_tls_failure(e, m_target, m_tls.get());
    return R::failure(e);
  }
  return static_cast<int>(reply.status());
}

}  // namespace launcher::gcs
