#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/label_settings.hpp"
#include "config/redis_settings.hpp"
#include "config/settings.hpp"
#include "net/host_port.hpp"

namespace launcher {

enum class ChecksPolicy { strict, warn, off };
enum class OutputFormat { text, json };
enum class LogFormat { text, json };
enum class OnSuccess { exit, stay };
enum class ForwardSignals { group, leader };  // the command's process group, or its process alone
enum class WatchMode { automatic, on, off };  // a watch while the command runs: when it can, always, never
enum class OnStuck { warn, stop };            // a stuck NCCL collective: say so, or stop the command (76)
// Where the head's GCS keeps its tables (RAY_gcs_storage, Ray's names): memory (Ray's default;
// Redis when RAY_REDIS_ADDRESS is set), redis, or the embedded RocksDB on a volume (Ray 2.60).
enum class GcsStorage { memory, redis, rocksdb };

const char* to_string(ChecksPolicy p);
const char* to_string(OnSuccess o);

// Typed, validated settings. Every field holds the table's default unless the setting was
// given (settings.cpp is the only place defaults are written); optional fields have no fixed
// default: the planner settles them from pod facts and reports where each came from. A new
// setting is a field here and a row in settings.cpp.
struct Config {
  int nodes = 0;
  std::optional<int> ordinal;
  std::optional<std::string> hostname;
  std::optional<std::string> namespace_name;
  std::optional<std::string> service;
  std::optional<std::string> cluster_domain;
  std::optional<std::string> head_host;  // --head-address without its port
  std::optional<int> head_port;          // --head-address's port, when it had one
  int ray_port = 0;
  int node_manager_port = 0;
  int metrics_export_port = 0;
  std::chrono::milliseconds join_timeout{0};
  std::string ray;
  std::vector<std::string> ray_args;
  std::optional<std::uint64_t> object_store_memory;
  // Ray node labels (issue 28, plan/node_labels.hpp): raylaunch's own on or off, their inputs, the user's.
  bool default_labels = true;
  std::optional<std::string> zone;
  std::optional<std::string> region;
  std::optional<CapacityType> capacity_type;
  std::vector<LabelPair> node_labels;
  std::optional<std::string> venv;
  ChecksPolicy checks = ChecksPolicy::strict;
  std::optional<int> gpus;
  std::optional<int> efa;
  std::optional<std::uint64_t> shm_min;
  std::string host_root;
  std::optional<net::HostPort> address;
  std::chrono::milliseconds probe_timeout{0};
  bool status_count = false;                   // status --count: the count of ALIVE pods alone
  bool use_tls = false;                        // RAY_USE_TLS: mutual TLS to Ray's GCS and raylets
  std::optional<std::string> tls_server_cert;  // RAY_TLS_SERVER_CERT (a path; contents read by gcs/)
  std::optional<std::string> tls_server_key;   // RAY_TLS_SERVER_KEY
  std::optional<std::string> tls_ca_cert;      // RAY_TLS_CA_CERT
  std::optional<net::HostPort> redis_address;  // RAY_REDIS_ADDRESS without its scheme: GCS fault tolerance on
  std::string redis_address_text;              // as given (host:port, redis:// or rediss://), for Ray
  RedisTlsSettings redis_tls;                  // rediss:// and RAY_REDIS_CA_CERT, ...
  std::optional<std::string> redis_username;
  std::optional<std::string> redis_password;   // a secret: registered with util::add_secret, never printed
  std::string storage_namespace;               // RAY_external_storage_namespace
  GcsStorage gcs_storage = GcsStorage::memory;  // RAY_gcs_storage
  std::string gcs_storage_path;                 // RAY_gcs_storage_path; "" when unset
  std::optional<std::uint64_t> gcs_storage_min_free;  // the volume's free-space floor
  bool dry_run = false;
  OnSuccess on_success = OnSuccess::exit;
  ForwardSignals forward_signals = ForwardSignals::group;
  int health_port = 0;
  std::chrono::milliseconds term_grace{0};
  std::chrono::milliseconds ray_stop_grace{0};
  std::chrono::milliseconds head_watch{0};     // worker: the head watch's period; 0: off
  int restarts = 0;                            // head: in-place restarts of the command
  std::chrono::milliseconds restart_window{0};
  std::optional<int> min_nodes;                // head: a quorum (nullopt: exactly `nodes`)
  std::chrono::milliseconds quorum_grace{0};
  // Watches while the command runs (issue 27): the EFA counters, NCCL's RAS.
  WatchMode efa_watch = WatchMode::automatic;
  std::chrono::milliseconds efa_idle_after{0};
  bool efa_idle_readyz = false;
  WatchMode nccl_ras = WatchMode::automatic;
  std::optional<net::HostPort> nccl_ras_address;  // an IP literal and port; nullopt: NCCL_RAS_ADDR or the default
  std::chrono::milliseconds nccl_ras_interval{0};
  int nccl_ras_polls = 0;
  OnStuck nccl_ras_on_stuck = OnStuck::warn;
  bool exec = false;
  // The gang fabric check (issue 27): fi_pingpong between the pods after the join barrier.
  bool fabric_check = false;
  std::string fabric_provider;
  std::optional<std::uint64_t> fabric_min_bandwidth;  // bytes/s; nullopt: the instance table's floor
  std::chrono::milliseconds fabric_check_timeout{0};
  std::string fabric_pingpong;                        // "": /opt/amazon/efa/bin, then PATH
  std::string termination_log;
  OutputFormat output = OutputFormat::text;
  LogFormat log_format = LogFormat::text;
  std::string log_level;

  // Where each given setting came from ("--nodes" or "RAYLAUNCH_NODES").
  std::map<const Setting*, std::string> sources;
  // That source, or "default" for a setting nobody gave: `source_of(&Config::gpus)`.
  std::string source_of(const Setting& setting) const;
  template <typename T>
  std::string source_of(T Config::*field) const {
    return source_of(setting_of(field));
  }
  template <typename T, typename U>
  std::string source_of(T Config::*outer, U T::*inner) const {
    return source_of(setting_of(outer, inner));
  }
};

// Parses the settings that `readers` read (a command's, or Commands::all()) from `raw`; every
// other setting keeps its default, whatever the environment says: a typo in an unrelated
// variable must not fail a liveness probe. Collects *all* problems, then throws one Fatal(64)
// whose lines each name the setting, its source, the bad value and what is expected.
Config parse_config(const RawSettings& raw, Commands readers);

}  // namespace launcher
