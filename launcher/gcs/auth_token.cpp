#include "gcs/auth_token.hpp"

#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

constexpr const char* k_token_env = "RAY_AUTH_TOKEN";
constexpr const char* k_token_path_env = "RAY_AUTH_TOKEN_PATH";

// "" when `token` can go into an `authorization` header, else what is wrong with it (never
// the token itself).
std::string token_problem(const std::string& token) {
  if (token.empty()) {
    return "it is empty (expected Ray's auth token)";
  }
  if (token.size() > k_max_token_bytes) {
    return "it is longer than " + std::to_string(k_max_token_bytes) + " bytes (expected Ray's auth token)";
  }
  for (std::size_t i = 0; i < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c < 0x21 || c > 0x7e) {
      return "byte " + std::to_string(i) + " is not printable ASCII" + (c == 0xef && i == 0 ? " (a UTF-8 BOM?)" : "") +
             " (expected a token of letters, digits and punctuation, as Ray generates)";
    }
  }
  return "";
}

}  // namespace

util::Result<std::optional<AuthToken>> load_auth_token(const util::EnvMap& env) {
  using R = util::Result<std::optional<AuthToken>>;
  // Surrounding whitespace is never part of a token; a Secret file or `echo` often ends in "\n",
  // which would otherwise be sent and rejected (inference).
  const std::string direct(util::trim(util::env_value(env, k_token_env)));
  std::string token;
  std::string source;
  if (!direct.empty()) {
    token = direct;
    source = k_token_env;
  } else {
    const std::string path = util::env_value(env, k_token_path_env);
    if (path.empty()) {
      return std::optional<AuthToken>();
    }
    source = std::string(k_token_path_env) + "=" + util::printable(path);
    std::string why;
    const auto text = util::read_small_file(path, k_max_token_bytes + 2, &why);
    if (!text) {
      return R::failure(source + ": cannot read the token file: " + why + " (mount the Secret there, or unset " +
                        k_token_path_env + ")");
    }
    // The first line, as Ray's loader reads it.
    token = std::string(util::trim(std::string_view(*text).substr(0, text->find('\n'))));
  }
  if (const std::string problem = token_problem(token); !problem.empty()) {
    return R::failure(source + ": the token is not usable: " + problem);
  }
  util::add_secret(token);
  return std::optional<AuthToken>(AuthToken{token, source});
}

}  // namespace launcher::gcs
