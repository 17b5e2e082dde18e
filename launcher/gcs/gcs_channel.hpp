#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gcs/auth_token.hpp"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace launcher::gcs {

// A failed call. `grpc_code` is the gRPC status (14 UNAVAILABLE, 4 DEADLINE_EXCEEDED,
// 16 UNAUTHENTICATED, …); when the call succeeded but Ray put an error in `reply.status`,
// `grpc_code` is 0 and `ray_code` holds Ray's StatusCode.
struct RpcError {
  int grpc_code = 0;
  int ray_code = 0;
  std::string message;

  bool unauthenticated() const { return grpc_code == 16; }
  // "UNAVAILABLE: failed to connect to all addresses" / "GCS status 4: ..."
  std::string describe() const;
};

// "UNAVAILABLE" for 14, "code 99" for codes gRPC does not define.
const char* grpc_code_name(int code);

// A channel configured as Ray's own clients configure theirs (ray-gcs-wire.md §4):
// 512 MiB receive limit (a 4,096-node table exceeds nothing today, but dead nodes and labels
// grow it), no HTTP proxy, no keepalive ping more often than the GCS's 60 s minimum, and
// reconnect/re-resolve backoffs short enough that a poll loop, not gRPC, owns the pacing.
// `target` is "host:port"; names are resolved by gRPC's c-ares resolver (no NSS, which a
// static glibc binary cannot load reliably).
std::shared_ptr<grpc::Channel> make_channel(const std::string& target);

// Sets the call's deadline and, when `token` is given, `authorization: Bearer <token>`.
void prepare_call(grpc::ClientContext& context, std::chrono::milliseconds timeout,
                  const std::optional<AuthToken>& token);

// Sends gRPC's own log lines to spdlog at debug level instead of raw stderr (they would break
// the one-line contract of errors and probes), after util::redact(); idempotent.
void route_grpc_logs();

}  // namespace launcher::gcs
