#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "gcs/gcs_channel.hpp"
#include "gcs/probe.hpp"
#include "plan/pod_identity.hpp"
#include "redis/redis_wait.hpp"
#include "redis/tls_client.hpp"

namespace launcher {

// Which GCS a command talks to, and which pods it expects to find there.
struct GcsTarget {
  std::string address;                      // HOST:PORT
  std::vector<std::string> expected_names;  // base-0 … base-(N-1), when this pod's identity is known
  std::optional<PodIdentity> identity;
};

// `--address` when given, else this pod's head address (same rules as `plan`, with /etc read
// where c-ares reads it; Fatal(64) when it cannot be derived). Expected names come from this
// pod's identity when it resolves; with an explicit address an unresolvable identity only
// means "cannot name the missing pods".
GcsTarget resolve_gcs_target(const Config& config, const EnvMap& env);

// What `raylaunch probe` and the health endpoint ask about this pod.
gcs::ProbeTarget probe_target(const PodIdentity& id, const Config& config);

// How this process authenticates to Ray's servers: the token as Ray's loader finds it
// (gcs::load_auth_token) and, with RAY_USE_TLS on, the three TLS files read and checked
// (gcs::load_tls_credentials). Fatal(64), one line naming the setting, when either cannot be
// used; nothing has started by then.
gcs::Credentials credentials_or_fatal(const Config& config, const EnvMap& env);

// What to do after UNAUTHENTICATED, depending on whether a token was sent.
std::string auth_hint(const gcs::Credentials& credentials);

// For rediss://, the TLS client every Redis connection of this command uses, loaded from the
// settings (RAY_REDIS_CA_CERT, ...; the server name defaults to the address's host); null for
// a plaintext address. A file that cannot be used throws Fatal(64) with one line naming the
// setting, before anything starts.
std::shared_ptr<const redis::TlsClient> redis_tls_or_fatal(const Config& config);

// The Redis of GCS fault tolerance as `wait redis` and `redis-cleanup` reach it: the address,
// REDIS_USERNAME and REDIS_PASSWORD, and the TLS client. Throws Fatal(64) without an address.
redis::RedisTarget redis_target_or_fatal(const Config& config, const char* command);

}  // namespace launcher
