#pragma once
#include <optional>
#include <string>

#include "settings.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// Ray's bearer token (token authentication, Ray 2.52+). `value` is a secret: never log it,
// print only `source`.
struct AuthToken {
  std::string value;
  std::string source;  // "RAY_AUTH_TOKEN" or "RAY_AUTH_TOKEN_PATH=/etc/ray/token"
};

// Loads the token the way Ray's own clients find it first: RAY_AUTH_TOKEN, else the file named
// by RAY_AUTH_TOKEN_PATH (src/ray/rpc/authentication/authentication_token_loader.cc; Ray treats
// a missing file as fatal, and so do we). nullopt when neither is set: no metadata is sent.
// Errors name the variable and the path, never the token.
util::Result<std::optional<AuthToken>> load_auth_token(const EnvMap& env);

}  // namespace launcher::gcs
