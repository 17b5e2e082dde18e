#include "plan/gcs_store.hpp"

#include "plan/gcs_ft.hpp"
#include "util/fatal.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// The store arrived in Ray 2.60.0 (REP-64, ray-project/ray#63657): an older GCS has no
// `rocksdb` and keeps its tables in memory, silently, whatever RAY_gcs_storage says.
constexpr int k_store_major = 2;
constexpr int k_store_minor = 60;

// Ray's budget for a GCS that opens its store (ray/_private/node.py, Ray 2.60: `_init_gcs_client`
// tries max(NUM_REDIS_GET_RETRIES, 120) times, about a second each; the port-file wait is 120 s
// instead of 30 s), both replaced by RAY_gcs_server_port_wait_time_s when it is set.
constexpr const char* k_wait_var = "RAY_gcs_server_port_wait_time_s";
constexpr std::chrono::seconds k_store_budget{120};

std::chrono::milliseconds ray_budget(const EnvMap& user_env) {
  if (auto it = user_env.find(k_wait_var); it != user_env.end()) {
    // Ray floors it at one attempt; an unparsable value would be Ray's own ValueError.
    if (const auto s = util::parse_int(it->second, 1, 86'400)) {
      return std::chrono::seconds(*s);
    }
  }
  return k_store_budget;
}

void check_ray_version(const Config& config, const std::optional<RayInstall>& ray, GcsStorePlan& out) {
  const std::string setting = config.source_of(&Config::gcs_storage);
  const std::string named = setting == "default" ? "RAY_gcs_storage" : setting;
  if (!ray) {
    out.checks.push_back({"gcs-store:ray-version", CheckStatus::warn,
                          named + "=rocksdb, and the installed Ray's version could not be read (no "
                                  "ray-*.dist-info/METADATA beside the ray script): the store exists from Ray 2.60",
                          "use Ray 2.60 or later; an older Ray keeps the GCS in memory and loses it with the head"});
    return;
  }
  if (!ray->at_least(k_store_major, k_store_minor)) {
    throw Fatal(exit_code::usage,
                named + "=rocksdb: the installed Ray " + util::printable(ray->version) + " (" +
                    util::printable(ray->metadata) +
                    ") has no embedded GCS store (added in Ray 2.60), and would keep the head's tables in memory: "
                    "use Ray 2.60 or later, or RAY_REDIS_ADDRESS for GCS fault tolerance with Redis");
  }
}

}  // namespace

std::string owner_of(const PodIdentity& id) {
  return id.namespace_name.empty() ? id.base_name : id.namespace_name + "/" + id.base_name;
}

GcsStorePlan plan_gcs_store(const Config& config, const PodIdentity& id, const EnvMap& user_env,
                            const std::optional<RayInstall>& ray) {
  GcsStorePlan out;
  if (config.gcs_storage != GcsStorage::rocksdb) {
    return out;
  }
  if (id.role == Role::worker) {
    out.env.push_back(outlive_head_restart(user_env, "GCS reload from its volume"));
    return out;
  }
  check_ray_version(config, ray, out);
  out.env.push_back(from_setting(config, setting_of(&Config::gcs_storage), "rocksdb", user_env,
                                 "the head's GCS keeps its tables in RocksDB on a volume (Ray 2.60)"));
  out.env.push_back(from_setting(config, setting_of(&Config::gcs_storage_path), config.gcs_storage_path, user_env,
                                 "the GCS store's directory: its databases kv/ and tables/, Ray's session_name"));
  out.preflight = PrepareGcsStore{config.gcs_storage_path, config.gcs_storage_min_free.value_or(0), owner_of(id)};
  out.local_gcs_budget = ray_budget(user_env);
  return out;
}

}  // namespace launcher
