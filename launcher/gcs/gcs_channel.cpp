#include "gcs/gcs_channel.hpp"

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <array>

#include "gcs/auth_token.hpp"
#include "util/redact.hpp"

namespace launcher::gcs {

namespace {

// Ray: max_grpc_message_size = 512 MiB for server and clients (ray_config_def.h).
constexpr int k_max_message_bytes = 512 * 1024 * 1024;
// Ray's GCS sets GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS to at most 60 s and
// answers faster pings with GOAWAY "too many pings" (grpc_server.cc).
constexpr int k_keepalive_ms = 60'000;
constexpr int k_keepalive_timeout_ms = 20'000;
// gRPC's own defaults (1 s growing to 120 s between reconnects, 30 s between re-resolutions)
// would hide a GCS that came back, or a DNS name that appeared, for minutes. The minimum
// (GRPC_ARG_MIN_RECONNECT_BACKOFF_MS) stays at gRPC's 20 s on purpose: gRPC 1.51 also uses it
// as the connect-and-handshake timeout, and 250 ms would fail a merely slow head forever.
constexpr int k_reconnect_initial_ms = 250;
constexpr int k_reconnect_max_ms = 2'000;
constexpr int k_min_reresolve_ms = 1'000;

constexpr std::array<const char*, 17> k_code_names = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};

void grpc_log_to_spdlog(gpr_log_func_args* args) {
  spdlog::debug("grpc: {}", util::redact(args->message));
}

}  // namespace

// Debian's libgrpc.a registers xDS (resolvers, LB policies, the xDS channel-stack modifier),
// Google default credentials, the file-watcher certificate provider and RBAC through one function,
// grpc_core::RegisterExtraFilters (grpc_plugin_registry_extra.cc). raylaunch dials host:port and
// ipv4: targets with plaintext or SSL credentials and needs none of it. Defining that function here
// (this object is always linked, and before libgrpc.a) keeps gRPC's out of the static program: the
// binary is ~1.9 MB smaller and an exec probe starts ~0.3 ms faster (benchmarks/results/gcs.md).
// The name is gRPC 1.51's mangled `void grpc_core::RegisterExtraFilters(CoreConfiguration::Builder*)`,
// given as an assembler label so that no gRPC-internal header is needed. Should a later gRPC stop
// calling it, this is simply unused.
extern "C" void raylaunch_register_no_extra_filters(void* builder) __asm__(
    "_ZN9grpc_core20RegisterExtraFiltersEPNS_17CoreConfiguration7BuilderE");
extern "C" void raylaunch_register_no_extra_filters(void* /*builder*/) {}

const char* grpc_code_name(int code) {
  if (code >= 0 && code < static_cast<int>(k_code_names.size())) {
    return k_code_names[static_cast<std::size_t>(code)];
  }
  return "code ?";
}

std::string RpcError::describe() const {
  if (!tls_problem.empty()) {
    return tls_problem;
  }
  if (grpc_code == 0) {
    return "GCS status " + std::to_string(ray_code) + ": " + message;
  }
  return std::string(grpc_code_name(grpc_code)) + (message.empty() ? "" : ": " + message);
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& target, const TlsCredentials* tls) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(k_max_message_bytes);
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);  // Ray: unless RAY_grpc_enable_http_proxy=1
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, k_keepalive_ms);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, k_keepalive_timeout_ms);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, k_reconnect_initial_ms);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, k_reconnect_max_ms);
  args.SetInt(GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS, k_min_reresolve_ms);
  // A fresh channel must not inherit a subchannel (and its backoff state) from a channel we
  // dropped after a failure: gRPC shares subchannels process-wide by default.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (tls == nullptr) {
    return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = tls->ca_pem;
  ssl.pem_private_key = tls->key_pem;
  ssl.pem_cert_chain = tls->cert_pem;
  return grpc::CreateCustomChannel(target, grpc::SslCredentials(ssl), args);
}

void prepare_call(grpc::ClientContext& context, std::chrono::milliseconds timeout, const Credentials& credentials) {
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  if (credentials.auth.live) {
    // Ray: kAuthTokenKey "authorization", kBearerPrefix "Bearer " (authentication_token.h).
    context.AddMetadata("authorization", "Bearer " + credentials.auth.live->value());
  }
}

void route_grpc_logs() {
  gpr_set_log_function(grpc_log_to_spdlog);
}

}  // namespace launcher::gcs
