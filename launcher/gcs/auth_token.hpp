#pragma once
#include <sys/types.h>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "util/env_map.hpp"
#include "util/platform.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// Ray's bearer token (token authentication, Ray 2.52+). `value` is a secret: never log it,
// print only `source`. Loading registers it with util::add_secret.
struct AuthToken {
  std::string value;
  std::string source;  // "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH=/etc/ray/token", "~/.ray/auth_token (/root/…)"
  std::string path;    // the file it was read from, re-read when it changes (LiveToken); "" for RAY_AUTH_TOKEN
};

class LiveToken;

// RAY_AUTH_MODE as Ray reads it (authentication_mode.cc: lowercased, "token" or anything else
// = disabled), with "unset" kept apart: since Ray 2.59 a head started without RAY_AUTH_MODE turns
// token auth on by itself when it finds a token (ray-project/ray#64755).
enum class AuthMode { unset, token, disabled };

// What the loader found. With RAY_AUTH_MODE unset a token is sent when one is found (harmless to
// a GCS without auth, required by a 2.59+ head that found the same token), and a source that is
// set but unusable is not an error until the GCS asks for a token: `unusable` says why then.
struct TokenLookup {
  AuthMode mode = AuthMode::unset;
  std::optional<AuthToken> token;  // as first read: its source names it in messages
  std::string unusable;            // "RAY_AUTH_TOKEN_PATH=/x: cannot read the token file: …"; "" when none
  // What calls send: `token`, followed across rotations of its file (null without a token).
  std::shared_ptr<LiveToken> live;
};

// Where Ray looks for Kubernetes tokens (platform.hpp); parameters so that tests can point them
// elsewhere. Ray 2.55+ (RAY_ENABLE_K8S_TOKEN_AUTH) reads kRaySaTokenPath, a projected token
// (KubeRay mounts it; components/auth-k8s-token too), never the automounted API token beside
// it: that one goes to the API server only, in Ray's TokenReview calls. Ray 2.52-2.53's RAY_AUTH_MODE=k8s read kK8sSaTokenPath.
struct TokenPaths {
  std::string ray_service_account = platform::k_ray_service_account_token;
  std::string k8s_service_account = platform::k_k8s_service_account_token;
};

// The most a token may be: Ray's are 32-byte hex strings; 64 KiB leaves room for any JWT and
// keeps a mistaken file (a log, a binary) from being read whole and sent on every call.
inline constexpr std::size_t k_max_token_bytes = 64 * 1024;

// Finds the token where Ray's loader finds it, in Ray's order
// (src/ray/rpc/authentication/authentication_token_loader.cc, TryLoadTokenFromSources, ray 2.60.0):
//   1. RAY_AUTH_TOKEN when set and not empty, then trimmed: a value of only whitespace is an empty
//      token from this source (an error), never a fall-through;
//   2. the first line, trimmed, of the file named by RAY_AUTH_TOKEN_PATH; unreadable or empty is
//      an error there, never a fall-through;
//   3. Kubernetes token mode (absent or empty: next): with RAY_ENABLE_K8S_TOKEN_AUTH=1|true
//      (Ray 2.55+), Ray's projected token (TokenPaths::ray_service_account); with
//      RAY_AUTH_MODE=k8s (Ray 2.52-2.53), the pod's service-account token;
//   4. the first line of ~/.ray/auth_token ($HOME; "./.ray/auth_token" without one, as Ray).
// RAY_AUTH_MODE=token: a problem with the sources, or no token at all, is an error (Ray's
// processes refuse to start then, too). RAY_AUTH_MODE=disabled: nothing is read, nothing sent.
// Unset: see TokenLookup. A token must be printable ASCII without spaces (an HTTP/2 header value;
// a UTF-8 BOM or a control byte would make gRPC abort the process). Errors name the variable and
// the path, never the token.
util::Result<TokenLookup> load_auth_token(const util::EnvMap& env, const TokenPaths& paths = {});

// The first line of `path`, trimmed, if it can be Ray's token; else why not (never the token).
// `source` names it in the error. How every file source is read, and re-read (LiveToken).
util::Result<std::string> read_token_file(const std::string& path, const std::string& source);

// How many of a rotating token's values stay registered as secrets: the one sent now and the two
// before it. A value sent minutes ago may still show in a line (a call in flight when the file
// changed, a server that echoes what it was sent); one rotated out twice (at least 16 minutes
// old for Ray's 10-minute tokens, renewed at 80 % of their life) has expired and is sent by
// nobody. Keeping every value would grow the list every log line is checked against for as long
// as the run lasts (180 a day at that pace, up to k_max_token_bytes each).
inline constexpr std::size_t k_kept_tokens = 3;

// The token a call sends, following its file. Kubernetes rotates projected service-account tokens
// (the kubelet refreshes them at 80 % of their lifetime; Ray's own are 10-minute tokens,
// k8s_constants.h kRaySATokenDefaultTTLSeconds) by swapping the volume's ..data symlink, and Ray
// 2.55+ re-reads its token as it nears expiry. A wait of 30 minutes or a resident probe that
// loaded its token once would send an expired one; this re-reads the file whenever it changed.
// Thread-safe: copies of one Credentials (the barrier, the resident probe thread) share it.
class LiveToken {
 public:
  explicit LiveToken(AuthToken token);

  // The value to send now. For a token read from a file, one stat() per call: when the file is
  // another file than the one read (device, inode, size or mtime differ; stat follows symlinks),
  // it is read again and, if usable, replaces the token (registered as a secret first; the value
  // k_kept_tokens back is unregistered). A file that is missing or unusable for a moment
  // (mid-rotation) keeps the token last read.
  std::string value();

  // How many times the file was read again (tests, logs).
  int reloads() const;

 private:
  struct Stamp {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = -1;
    timespec mtime{};
    bool operator==(const Stamp& o) const;
  };
  static Stamp stamp_of(const std::string& path);
  void remember(const std::string& value);  // registers it, unregisters the oldest beyond k_kept_tokens

  mutable std::mutex m_mutex;
  AuthToken m_token;
  std::deque<std::string> m_registered;  // the values this token registered as secrets, oldest first
  Stamp m_stamp;
  int m_reloads = 0;
};

}  // namespace launcher::gcs
