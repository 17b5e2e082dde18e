#include "gcs/auth_token.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <spdlog/spdlog.h>

#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

constexpr const char* k_token_env = "RAY_AUTH_TOKEN";
constexpr const char* k_token_path_env = "RAY_AUTH_TOKEN_PATH";
constexpr const char* k_mode_env = "RAY_AUTH_MODE";
constexpr const char* k_k8s_env = "RAY_ENABLE_K8S_TOKEN_AUTH";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// RayConfig's bool: "true" or "1", any case (ray_config.h, ConvertValue<bool>).
bool ray_bool(const std::string& value) {
  const std::string v = lower(value);
  return v == "true" || v == "1";
}

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

// One source's answer: a token, nothing (look further), or why a source that is set cannot be used.
struct Found {
  std::optional<AuthToken> token;
  std::string problem;
};

Found checked(std::string token, std::string source, std::string path = "") {
  if (const std::string problem = token_problem(token); !problem.empty()) {
    return {std::nullopt, source + ": the token is not usable: " + problem};
  }
  return {AuthToken{std::move(token), std::move(source), std::move(path)}, ""};
}

// The first line of `path`, trimmed, as Ray's ReadTokenFromFile + TrimWhitespace read it.
std::optional<std::string> first_line(const std::string& path, std::string* why) {
  // Only the first line is read (a token file over 64 KiB with a token on its first line is
  // Ray's as well); a first line longer than a token can be is refused as too long.
  const auto text = util::read_file_head(path, k_max_token_bytes + 2, why);
  if (!text) {
    return std::nullopt;
  }
  return std::string(util::trim(std::string_view(*text).substr(0, text->find('\n'))));
}

// An optional source (a service-account token, ~/.ray/auth_token): absent or empty means "look
// further", as in Ray; a token that is there but not usable is still a problem.
Found optional_file(const std::string& path, const std::string& source) {
  std::string why;
  auto line = first_line(path, &why);
  if (!line || line->empty()) {
    return {};
  }
  return checked(std::move(*line), source, path);
}

Found find_token(const util::EnvMap& env, const TokenPaths& paths, const std::string& mode) {
  // Ray takes RAY_AUTH_TOKEN when it is set and not empty, and trims it only then: spaces alone
  // are an empty token from this source, not a reason to look further (TryLoadTokenFromSources).
  if (const std::string raw = util::env_value(env, k_token_env); !raw.empty()) {
    std::string direct(util::trim(raw));
    if (direct.empty()) {
      return {std::nullopt, std::string(k_token_env) +
                                ": the token is not usable: it holds only whitespace (Ray takes RAY_AUTH_TOKEN "
                                "whenever it is set and not empty, and looks no further; unset it or set the token)"};
    }
    return checked(std::move(direct), k_token_env);
  }
  if (const std::string path = util::env_value(env, k_token_path_env); !path.empty()) {
    const std::string source = std::string(k_token_path_env) + "=" + util::printable(path);
    auto token = read_token_file(path, source);
    if (!token) {
      return {std::nullopt, token.error()};
    }
    return {AuthToken{std::move(token).value(), source, path}, ""};
  }
  // Kubernetes token mode. Ray 2.55+: RAY_ENABLE_K8S_TOKEN_AUTH and its own projected token; Ray
  // 2.52-2.53: RAY_AUTH_MODE=k8s and the API server's token (#58497, replaced by #59621).
  std::optional<std::pair<std::string, std::string>> k8s;
  if (mode == "k8s") {
    k8s.emplace(paths.k8s_service_account, "the service-account token " + util::printable(paths.k8s_service_account));
  } else if (ray_bool(util::env_value(env, k_k8s_env))) {
    k8s.emplace(paths.ray_service_account,
                "the Ray service-account token " + util::printable(paths.ray_service_account));
  }
  if (k8s) {
    Found f = optional_file(k8s->first, k8s->second);
    if (f.token || !f.problem.empty()) {
      return f;
    }
  }
  const std::string home = util::env_value(env, "HOME");
  const std::string path = (home.empty() ? std::string(".") : home) + "/.ray/auth_token";
  return optional_file(path, "~/.ray/auth_token (" + util::printable(path) + ")");
}

}  // namespace

util::Result<std::string> read_token_file(const std::string& path, const std::string& source) {
  using R = util::Result<std::string>;
  std::string why;
  auto line = first_line(path, &why);
  if (!line) {
    return R::failure(source + ": cannot read the token file: " + why + " (mount the Secret there, or unset " +
                      k_token_path_env + ")");
  }
  if (const std::string problem = token_problem(*line); !problem.empty()) {
    return R::failure(source + ": the token is not usable: " + problem);
  }
  return std::move(*line);
}

util::Result<TokenLookup> load_auth_token(const util::EnvMap& env, const TokenPaths& paths) {
  using R = util::Result<TokenLookup>;
  TokenLookup lookup;
  const std::string mode = lower(std::string(util::trim(util::env_value(env, k_mode_env))));
  // "k8s" was a mode of its own for a while (ray-project/ray#58497, replaced by
  // RAY_ENABLE_K8S_TOKEN_AUTH in #59621); it required a token as "token" does.
  lookup.mode = mode.empty()                       ? AuthMode::unset
                : mode == "token" || mode == "k8s" ? AuthMode::token
                                                   : AuthMode::disabled;
  if (lookup.mode == AuthMode::disabled) {
    return lookup;  // Ray's clients send no token then, and read no token file
  }
  Found found = find_token(env, paths, mode);
  if (lookup.mode == AuthMode::token) {
    if (!found.problem.empty()) {
      return R::failure(found.problem);
    }
    if (!found.token) {
      return R::failure(std::string(k_mode_env) +
                        "=token but no token was found (set RAY_AUTH_TOKEN, or RAY_AUTH_TOKEN_PATH to a file "
                        "holding it, or create ~/.ray/auth_token)");
    }
  }
  if (found.token) {
    lookup.live = std::make_shared<LiveToken>(*found.token);  // registers it as a secret
  }
  lookup.token = std::move(found.token);
  lookup.unusable = std::move(found.problem);
  return lookup;
}

bool LiveToken::Stamp::operator==(const Stamp& o) const {
  return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
         mtime.tv_nsec == o.mtime.tv_nsec;
}

LiveToken::Stamp LiveToken::stamp_of(const std::string& path) {
  Stamp s;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    s = {st.st_dev, st.st_ino, st.st_size, st.st_mtim};
  }
  return s;
}

// The stamp is taken before the read: a change between the two shows as a change next time.
LiveToken::LiveToken(AuthToken token) : m_token(std::move(token)) {
  remember(m_token.value);
  if (!m_token.path.empty()) {
    m_stamp = stamp_of(m_token.path);
  }
}

void LiveToken::remember(const std::string& value) {
  util::add_secret(value);
  m_registered.push_back(value);
  while (m_registered.size() > k_kept_tokens) {
    util::remove_secret(m_registered.front());
    m_registered.pop_front();
  }
}

std::string LiveToken::value() {
  const std::lock_guard lock(m_mutex);
  if (m_token.path.empty()) {
    return m_token.value;
  }
  const Stamp now = stamp_of(m_token.path);
  if (now == m_stamp || now.size < 0) {
    return m_token.value;  // unchanged, or gone for a moment: keep what we have
  }
  auto fresh = read_token_file(m_token.path, m_token.source);
  if (!fresh) {
    spdlog::debug("the token file changed but cannot be used yet ({}); still sending the token read before",
                  fresh.error());
    return m_token.value;
  }
  m_stamp = now;
  if (fresh.value() != m_token.value) {
    remember(fresh.value());
    m_token.value = std::move(fresh).value();
    ++m_reloads;
    spdlog::info("Ray's auth token changed in {}: sending the new one", m_token.source);
  }
  return m_token.value;
}

int LiveToken::reloads() const {
  const std::lock_guard lock(m_mutex);
  return m_reloads;
}

}  // namespace launcher::gcs
