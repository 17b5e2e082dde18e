#include "gcs/auth_token.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/parse.hpp"

namespace launcher::gcs {

namespace {

constexpr const char* k_token_env = "RAY_AUTH_TOKEN";
constexpr const char* k_token_path_env = "RAY_AUTH_TOKEN_PATH";

std::string env_value(const EnvMap& env, const char* name) {
  const auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

}  // namespace

util::Result<std::optional<AuthToken>> load_auth_token(const EnvMap& env) {
  using R = util::Result<std::optional<AuthToken>>;
  // Surrounding whitespace is never part of a token; a Secret file or `echo` often ends in "\n",
  // which would otherwise be sent and rejected (inference).
  const std::string direct(util::trim(env_value(env, k_token_env)));
  if (!direct.empty()) {
    return std::optional<AuthToken>(AuthToken{direct, k_token_env});
  }
  const std::string path = env_value(env, k_token_path_env);
  if (path.empty()) {
    return std::optional<AuthToken>();
  }
  const std::string source = std::string(k_token_path_env) + "=" + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return R::failure(source + ": cannot read the token file: " + std::strerror(errno) +
                      " (mount the Secret there, or unset " + k_token_path_env + ")");
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string token(util::trim(text.str()));
  if (token.empty()) {
    return R::failure(source + ": the token file is empty (expected Ray's auth token)");
  }
  return std::optional<AuthToken>(AuthToken{token, source});
}

}  // namespace launcher::gcs
