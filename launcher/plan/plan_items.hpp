#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "net/host_port.hpp"
#include "util/process_limits.hpp"

namespace launcher {

enum class CheckStatus { pass, warn, fail };
const char* to_string(CheckStatus s);

// One node check: what was found, and the fix in one line when it is not a pass.
struct Check {
  std::string name;
  CheckStatus status = CheckStatus::pass;
  std::string detail;
  std::string fix;
};

enum class Origin { raylaunch, user };
const char* to_string(Origin o);

// One variable of the environment `ray start` and the launch command inherit.
struct EnvVar {
  std::string name;
  std::string value;
  Origin origin = Origin::raylaunch;  // user: already set by the user, kept as it is
  std::string reason;
};

// Raise a soft resource limit before anything is spawned (children inherit it).
struct RaiseLimit {
  util::LimitResource resource = util::LimitResource::nofile;
  std::optional<std::uint64_t> soft;  // nullopt: unlimited
};

// The head's preflight with GCS fault tolerance: wait until the external Redis answers PING
// after AUTH (redis::wait_for_redis) before `ray start`, whose GCS would otherwise crash after
// ~60 s of retries. The password is not here: `run` takes it from Config::redis_password, and
// nothing that prints an action can show it.
struct WaitForRedis {
  net::HostPort address;
  std::optional<std::string> username;
  bool password = false;  // whether AUTH sends REDIS_PASSWORD
  std::string storage_namespace;
  std::chrono::milliseconds timeout{0};
  // rediss://: the name the server's certificate must carry (RAY_REDIS_SERVER_NAME, else the
  // address's host); nullopt for plaintext. `run` loads the TLS files from Config::redis_tls.
  std::optional<std::string> tls_server_name;
};

// A process-level change `run` makes before `ray start`, decided by the planner: `plan`
// prints it (describe()), `run` executes it (supervisor/apply_actions), never a second path.
// The head's preflight with the GCS store on a volume (RAY_gcs_storage=rocksdb): before `ray
// start`, the directory is checked (plan/gcs_store_volume.hpp: there, writable, fsync, free space,
// not in memory, no other cluster's database), claimed for `owner` and locked for the life of
// PID 1 (one writer per volume). A refusal is exit 78 with the reason and its fix.
struct PrepareGcsStore {
  std::string path;
  std::uint64_t min_free = 0;  // bytes
  std::string owner;           // "<namespace>/<name>": the cluster this volume belongs to
};

using Action = std::variant<RaiseLimit, WaitForRedis, PrepareGcsStore>;

// "raise RLIMIT_NOFILE soft limit to 65536"
std::string describe(const Action& action);

}  // namespace launcher
