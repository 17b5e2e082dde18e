#include "app/commands.hpp"

namespace launcher {

namespace {

// What names this pod and its head: every command that works out a pod's identity reads these.
const std::vector<std::string_view> k_identity = {"nodes",   "ordinal",        "hostname",     "namespace",
                                                  "service", "cluster_domain", "head_address", "ray_port"};
const std::vector<std::string_view> k_logging = {"log_format", "log_level"};
// Ray's TLS: every command that talks to Ray's GCS or raylets (and `plan`, which shows it).
const std::vector<std::string_view> k_tls = {"use_tls", "tls_server_cert", "tls_server_key", "tls_ca_cert"};
// The external Redis of GCS fault tolerance (the head's preflight, `wait redis`, the cleanup).
const std::vector<std::string_view> k_redis = {"redis_address",     "redis_username",   "redis_password",
                                               "storage_namespace", "redis_ca_cert",    "redis_ca_path",
                                               "redis_client_cert", "redis_client_key", "redis_server_name"};

std::vector<std::string_view> with(std::vector<std::string_view> base,
                                   std::initializer_list<std::vector<std::string_view>> more) {
  for (const auto& keys : more) {
    base.insert(base.end(), keys.begin(), keys.end());
  }
  return base;
}

// `plan` reads exactly what `run` reads, so it validates what `run` would and prints the same plan.
const std::vector<std::string_view> k_run_settings =
    with(k_identity, {{"node_manager_port", "metrics_export_port", "join_timeout", "ray", "ray_args",
                       "object_store_memory", "venv", "checks", "gpus", "efa", "shm_min", "host_root", "on_success",
                       "forward_signals", "health_port", "term_grace", "ray_stop_grace", "head_watch", "restarts",
                       "restart_window", "min_nodes", "quorum_grace", "exec", "termination_log", "output"},
                      k_tls,
                      k_redis, k_logging});

}  // namespace

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"run",
       "the pod's container command: start Ray (head or worker), wait for every node, run the command as PID 1",
       k_run_settings, SignalMode::handled, "", {}, false, true, cmd_run},
      {"plan", "print what `run` would do in this pod (role, ray start argv, env, checks); start nothing",
       k_run_settings, SignalMode::defaults, "", {}, false, true, cmd_plan},
      {"wait",
       "wait until N distinct pods are ALIVE in the GCS (nodes), the head's GCS answers (head), or Redis answers "
       "PING after AUTH (redis)",
       with(k_identity, {{"address", "join_timeout"}, k_tls, k_redis, k_logging}), SignalMode::handled, "what",
       {"nodes", "head", "redis"}, false, false, cmd_wait},
      {"status", "print the GCS node table and the count of ALIVE nodes",
       with(k_identity, {{"address", "output", "status_count"}, k_tls, k_logging}), SignalMode::defaults, "", {},
       false, false, cmd_status},
      {"probe", "kubelet exec probe: one RPC, exit 0 healthy or 1 unhealthy",
       with(k_identity, {{"node_manager_port", "probe_timeout"}, k_tls, k_logging}), SignalMode::defaults, "kind",
       {"liveness", "readiness"}, true, false, cmd_probe},
      {"redis-cleanup",
       "delete one Ray cluster's keys from the Redis of GCS fault tolerance (after the cluster is gone)",
       with(k_redis, {{"dry_run", "join_timeout"}, k_logging}), SignalMode::handled, "", {}, false, false,
       cmd_redis_cleanup},
      {"version", "print the version and git commit", {}, SignalMode::defaults, "", {}, false, false, cmd_version},
  };
  return table;
}

}  // namespace launcher
