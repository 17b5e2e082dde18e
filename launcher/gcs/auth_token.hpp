#pragma once
#include <optional>
#include <string>

#include "util/env_map.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// Ray's bearer token (token authentication, Ray 2.52+). `value` is a secret: never log it,
// print only `source`. Loading registers it with util::add_secret.
struct AuthToken {
  std::string value;
  std::string source;  // "RAY_AUTH_TOKEN" or "RAY_AUTH_TOKEN_PATH=/etc/ray/token"
};

// The most a token may be: Ray's are 32-byte hex strings; 64 KiB leaves room for any JWT and
// keeps a mistaken file (a log, a binary) from being read whole and sent on every call.
inline constexpr std::size_t k_max_token_bytes = 64 * 1024;

// Loads the token the way Ray's own clients find it first: RAY_AUTH_TOKEN, else the first
// line of the file named by RAY_AUTH_TOKEN_PATH (src/ray/rpc/authentication/
// authentication_token_loader.cc; Ray treats a missing file as fatal, and so do we). nullopt
// when neither is set: no metadata is sent. A token must be printable ASCII without spaces
// (an HTTP/2 header value; a UTF-8 BOM or a control byte would make gRPC abort the process).
// Errors name the variable and the path, never the token.
util::Result<std::optional<AuthToken>> load_auth_token(const util::EnvMap& env);

}  // namespace launcher::gcs
