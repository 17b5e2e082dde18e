#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gcs/auth_token.hpp"
#include "gcs/tls_files.hpp"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace launcher::gcs {

// How raylaunch presents itself to Ray's gRPC servers (GCS and raylets): Ray's bearer token and,
// with RAY_USE_TLS, the pod's certificate for mutual TLS. Cheap to copy.
struct Credentials {
  TokenLookup auth;
  std::shared_ptr<const TlsCredentials> tls;  // null: plaintext (RAY_USE_TLS off)

  const std::optional<AuthToken>& token() const { return auth.token; }
};

// A failed call. `grpc_code` is the gRPC status (14 UNAVAILABLE, 4 DEADLINE_EXCEEDED,
// 16 UNAUTHENTICATED, …); when the call succeeded but Ray put an error in `reply.status`,
// `grpc_code` is 0 and `ray_code` holds Ray's StatusCode.
struct RpcError {
  int grpc_code = 0;
  int ray_code = 0;
  std::string message;
  // Set when the connection failed in the TLS handshake for a reason that waiting cannot heal (a
  // certificate signed by another CA, a name not in the certificate, TLS on one side only): what
  // is wrong and how to fix it, in one sentence (tls_diagnosis.hpp).
  std::string tls_problem;

  bool unauthenticated() const { return grpc_code == 16; }
  bool unimplemented() const { return grpc_code == 12; }
  // Retrying cannot fix it: our token was refused, or the TLS handshake cannot succeed.
  bool permanent() const { return unauthenticated() || !tls_problem.empty(); }
  // "UNAVAILABLE: failed to connect to all addresses" / "GCS status 4: ..." / the TLS problem
  std::string describe() const;
};

// "UNAVAILABLE" for 14, "code 99" for codes gRPC does not define.
const char* grpc_code_name(int code);

// A channel configured as Ray's own clients configure theirs (ray-gcs-wire.md §4):
// 512 MiB receive limit (a 4,096-node table exceeds nothing today, but dead nodes and labels
// grow it), no HTTP proxy, no keepalive ping more often than the GCS's 60 s minimum, and
// reconnect/re-resolve backoffs short enough that a poll loop, not gRPC, owns the pacing.
// `target` is "host:port"; names are resolved by gRPC's c-ares resolver (no NSS, which a
// static glibc binary cannot load reliably). With `tls`, mutual TLS as Ray's C++ client does it
// (grpc_client.cc): the CA as roots, the pod's certificate and key as client certificate, and
// no target-name override, so the server must hold a certificate for the name or IP dialled.
std::shared_ptr<grpc::Channel> make_channel(const std::string& target, const TlsCredentials* tls);

// Sets the call's deadline and, when `credentials` has a token, `authorization: Bearer <token>`.
void prepare_call(grpc::ClientContext& context, std::chrono::milliseconds timeout, const Credentials& credentials);

// Sends gRPC's own log lines to spdlog at debug level instead of raw stderr (they would break
// the one-line contract of errors and probes), after util::redact(); idempotent.
void route_grpc_logs();

}  // namespace launcher::gcs
