#include "config/settings.hpp"

#include <stdexcept>

namespace launcher {

const std::vector<SettingSpec>& setting_specs() {
  // Defaults cite where they come from when the number is Ray's or Kubernetes'.
  static const std::vector<SettingSpec> specs = {
      // Cluster shape and identity.
      {"nodes", "--nodes", "RAYLAUNCH_NODES", "1", "", "total pods (Ray nodes) in the job, head included"},
      {"ordinal", "--ordinal", "RAYLAUNCH_ORDINAL", "", "JOB_COMPLETION_INDEX, else the hostname's -N suffix",
       "this pod's index: 0 is the head, 1..nodes-1 are workers"},
      {"hostname", "--hostname", "HOSTNAME", "", "gethostname()", "this pod's hostname (also Ray's --node-name)"},
      {"namespace", "--namespace", "POD_NAMESPACE", "", "none (set it from the Downward API)",
       "Kubernetes namespace of the pods, for the head's DNS name"},
      {"service", "--service", "RAYLAUNCH_SERVICE", "", "the subdomain of this pod's FQDN in /etc/hosts",
       "headless Service that gives the pods DNS names"},
      {"cluster_domain", "--cluster-domain", "RAYLAUNCH_CLUSTER_DOMAIN", "",
       "from /etc/hosts or /etc/resolv.conf, else cluster.local", "Kubernetes cluster DNS domain"},
      {"head_address", "--head-address", "RAYLAUNCH_HEAD_ADDRESS", "", "<base>-0.<service>.<namespace>.svc.<domain>",
       "the head's host[:port] (IPv6 in brackets), instead of deriving it; the port defaults to --ray-port"},
      // Ray's DEFAULT_PORT (python/ray/_private/ray_constants.py).
      {"ray_port", "--ray-port", "RAYLAUNCH_RAY_PORT", "6379", "", "GCS port of the head (ray start --port)"},
      // Ours: Ray's default is 0 (random), which no probe can find.
      {"node_manager_port", "--node-manager-port", "RAYLAUNCH_NODE_MANAGER_PORT", "6380", "",
       "raylet gRPC port, pinned so the worker liveness probe can find it"},
      // KubeRay's metrics port (ray start --metrics-export-port=8080).
      {"metrics_export_port", "--metrics-export-port", "RAYLAUNCH_METRICS_EXPORT_PORT", "8080", "",
       "Ray's Prometheus metrics port (ray start --metrics-export-port)"},
      {"join_timeout", "--join-timeout,--timeout", "RAYLAUNCH_JOIN_TIMEOUT", "300s", "",
       "how long the head waits for every node (and for Redis), and a worker for its head (300, 300s, 5m, 1m30s)"},
      // Ray.
      {"ray", "--ray", "RAYLAUNCH_RAY", "ray", "", "the ray CLI: a path, or a name looked up on PATH"},
      {"ray_args", "--ray-args", "RAYLAUNCH_RAY_ARGS", "", "none",
       "extra `ray start` arguments, space-separated; appended, and they win (except the options raylaunch owns)"},
      {"object_store_memory", "--object-store-memory", "RAYLAUNCH_OBJECT_STORE_MEMORY", "",
       "free /dev/shm minus headroom for NCCL and DataLoader", "Ray object store size (bytes, 56Gi, 60G)"},
      {"venv", "--venv", "RAYLAUNCH_VENV", "", "none",
       "a Python virtualenv: <venv>/bin goes first on PATH and VIRTUAL_ENV is set, for ray start and the command"},
      // Node checks.
      {"checks", "--checks", "RAYLAUNCH_CHECKS", "strict", "",
       "node check policy: strict (a failure stops, exit 78), warn, off"},
      {"gpus", "--gpus", "RAYLAUNCH_GPUS", "", "from the instance type, else what is found",
       "GPUs this pod is expected to see"},
      {"efa", "--efa", "RAYLAUNCH_EFA", "", "from the instance type, else what is found",
       "EFA devices this pod is expected to see"},
      {"shm_min", "--shm-min", "RAYLAUNCH_SHM_MIN", "", "64Gi when GPUs are expected, else 1Gi",
       "smallest acceptable /dev/shm"},
      {"host_root", "--host-root", "RAYLAUNCH_HOST_ROOT", "/", "",
       "prefix for reads of node facts under /sys, /dev, /proc/driver, /proc/meminfo, /etc (plan, run)"},
      // GCS client.
      {"address", "--address", "RAYLAUNCH_GCS_ADDRESS", "", "this pod's head address",
       "GCS address HOST:PORT for wait and status"},
      {"probe_timeout", "--probe-timeout", "RAYLAUNCH_PROBE_TIMEOUT", "1s", "",
       "deadline of one probe; keep it below the kubelet's timeoutSeconds"},
      {.key = "status_count",
       .flags = "--count",
       .env = "RAYLAUNCH_STATUS_COUNT",
       .default_value = "false",
       .default_note = "",
       .help = "status: print only the count of ALIVE pods, counted by node name as wait counts them",
       .bare_flag = true},
      // Ray's TLS (ray_config_def.h USE_TLS, TLS_SERVER_CERT, TLS_SERVER_KEY, TLS_CA_CERT): Ray's own
      // names, so one set of variables configures Ray and raylaunch alike.
      {.key = "use_tls",
       .flags = "--use-tls",
       .env = "RAY_USE_TLS",
       .default_value = "false",
       .default_note = "",
       .help = "mutual TLS to Ray's GCS and raylets, as Ray's servers require with RAY_USE_TLS=1 (1|true, 0|false)",
       .bare_flag = true},
      {"tls_server_cert", "--tls-server-cert", "RAY_TLS_SERVER_CERT", "", "none",
       "with TLS: this pod's certificate (PEM), presented as client certificate as Ray's own clients do"},
      {"tls_server_key", "--tls-server-key", "RAY_TLS_SERVER_KEY", "", "none",
       "with TLS: the private key of RAY_TLS_SERVER_CERT (PEM, unencrypted)"},
      {"tls_ca_cert", "--tls-ca-cert", "RAY_TLS_CA_CERT", "", "none",
       "with TLS: the CA certificate(s) that servers' certificates must chain to (PEM)"},
      // GCS fault tolerance: an external Redis keeps the head's tables (ray-gcs-wire.md §1, anchors.md A4).
      // Ray reads RAY_REDIS_ADDRESS and RAY_external_storage_namespace itself; REDIS_PASSWORD and
      // REDIS_USERNAME are KubeRay's names, which raylaunch passes as ray start --redis-password/-username.
      {"redis_address", "--redis-address", "RAY_REDIS_ADDRESS", "", "none: no GCS fault tolerance",
       "Redis of GCS fault tolerance, host:port, redis://host:port or rediss://host:port (TLS); the head waits "
       "until it answers"},
      // Redis over TLS: Ray's own variables (ray_config_def.h REDIS_CA_CERT, REDIS_CA_PATH,
      // REDIS_CLIENT_CERT, REDIS_CLIENT_KEY, REDIS_SERVER_NAME), read by Ray's GCS as well.
      {"redis_ca_cert", "--redis-ca-cert", "RAY_REDIS_CA_CERT", "", "none: the system's trust store",
       "with rediss://: the CA certificate(s), PEM, that the Redis server's certificate must chain to"},
      {"redis_ca_path", "--redis-ca-path", "RAY_REDIS_CA_PATH", "", "none",
       "with rediss://: a directory of CA certificates named by hash (openssl rehash)"},
      {"redis_client_cert", "--redis-client-cert", "RAY_REDIS_CLIENT_CERT", "", "none: no client certificate",
       "with rediss://: a client certificate (PEM) for a Redis that asks for one; needs RAY_REDIS_CLIENT_KEY"},
      {"redis_client_key", "--redis-client-key", "RAY_REDIS_CLIENT_KEY", "", "none",
       "with rediss://: the private key of RAY_REDIS_CLIENT_CERT (PEM, unencrypted)"},
      {"redis_server_name", "--redis-server-name", "RAY_REDIS_SERVER_NAME", "", "the host of RAY_REDIS_ADDRESS",
       "with rediss://: the name the server's certificate must carry (and SNI)"},
      {"redis_username", "--redis-username", "REDIS_USERNAME", "", "none: Redis' default user",
       "Redis ACL user (Redis 6+), sent with REDIS_PASSWORD"},
      {.key = "redis_password",
       .flags = "",
       .env = "REDIS_PASSWORD",
       .default_value = "",
       .default_note = "none: no AUTH",
       .help = "Redis password; environment only (from a Secret), never printed",
       .secret = true},
      // Ray's default external_storage_namespace (ray_config_def.h).
      {"storage_namespace", "--storage-namespace", "RAY_external_storage_namespace", "default", "",
       "this cluster's key prefix in Redis (RAY<ns>@…): unique per Ray cluster sharing one Redis"},
      {.key = "dry_run",
       .flags = "--dry-run",
       .env = "RAYLAUNCH_DRY_RUN",
       .default_value = "false",
       .default_note = "",
       .help = "redis-cleanup: find and count the keys, delete nothing",
       .bare_flag = true},
      // Supervisor (run).
      {"on_success", "--on-success", "RAYLAUNCH_ON_SUCCESS", "exit", "",
       "after the command exits 0 on the head: exit (Jobs), or stay up until SIGTERM (StatefulSets)"},
      {"health_port", "--health-port", "RAYLAUNCH_HEALTH_PORT", "0", "",
       "serve /livez, /readyz and /metrics over HTTP on this port (0: off)"},
      {"term_grace", "--term-grace", "RAYLAUNCH_TERM_GRACE", "30s", "",
       "after SIGTERM, how long the command gets before SIGKILL"},
      {"ray_stop_grace", "--ray-stop-grace", "RAYLAUNCH_RAY_STOP_GRACE", "15s", "",
       "how long `ray start --block` gets to stop Ray's processes after SIGTERM before SIGKILL"},
      // Surviving what ends runs (issue 19): the head watch, in-place restarts, a quorum barrier.
      {"head_watch", "--head-watch", "RAYLAUNCH_HEAD_WATCH", "2s", "",
       "worker: how often to ask the head's GCS for its cluster id and this node's row (two small RPCs); a new "
       "cluster or this node DEAD ends the pod at once (69). 0 or off: no watch"},
      {"restarts", "--restarts", "RAYLAUNCH_RESTARTS", "0", "",
       "head: how many times to run the command again in place after a retryable failure (not 64/69/70/71/74/75/"
       "77/78/126/127, not SIGTERM or SIGINT), each after the join barrier again; 0: never"},
      {"restart_window", "--restart-window", "RAYLAUNCH_RESTART_WINDOW", "1h", "",
       "head: the window --restarts counts in (at most that many restarts within any such window)"},
      {"min_nodes", "--min-nodes", "RAYLAUNCH_MIN_NODES", "", "off: exactly --nodes",
       "head: a quorum; once this many pods are ALIVE for --quorum-grace, run the command with those present "
       "(RAYLAUNCH_NODES_PRESENT); the others still join Ray"},
      {"quorum_grace", "--quorum-grace", "RAYLAUNCH_QUORUM_GRACE", "60s", "",
       "head, with --min-nodes: how long a quorum waits for the rest before the command starts (0: at once)"},
      {"forward_signals", "--forward-signals", "RAYLAUNCH_FORWARD_SIGNALS", "group", "",
       "where a signal for the command goes: its whole process group (group), or its process alone (leader); "
       "`ray start` always gets it alone"},
      {.key = "exec",
       .flags = "--exec",
       .env = "RAYLAUNCH_EXEC",
       .default_value = "false",
       .default_note = "",
       .help = "after the barrier, replace raylaunch with the command (execve), for images with their own init; "
               "not with --on-success stay or --health-port",
       .bare_flag = true},
      // Kubernetes' default terminationMessagePath.
      {"termination_log", "--termination-log", "RAYLAUNCH_TERMINATION_LOG", "/dev/termination-log", "",
       "file for the one-line reason raylaunch exited (Kubernetes termination message)"},
      // Output.
      {"output", "--output", "RAYLAUNCH_OUTPUT", "text", "", "output of plan and status: text or json"},
      {"log_format", "--log-format", "RAYLAUNCH_LOG_FORMAT", "text", "", "log lines on stderr: text or json"},
      {"log_level", "--log-level", "RAYLAUNCH_LOG_LEVEL", "info", "", "debug, info, warn or error"},
  };
  return specs;
}

const SettingSpec& setting_spec(std::string_view key) {
  for (const SettingSpec& spec : setting_specs()) {
    if (spec.key == key) {
      return spec;
    }
  }
  throw std::logic_error("unknown setting key: " + std::string(key));
}

std::string_view canonical_flag(const SettingSpec& spec) { return spec.flags.substr(0, spec.flags.find(',')); }

RawSettings::RawSettings(const std::map<std::string, std::string>& flags, const EnvMap& env) {
  for (const SettingSpec& spec : setting_specs()) {
    const std::string key(spec.key);
    if (auto f = flags.find(key); f != flags.end()) {
      m_values[key] = RawValue{f->second, std::string(canonical_flag(spec))};
    } else if (auto e = env.find(std::string(spec.env)); e != env.end() && !e->second.empty()) {
      m_values[key] = RawValue{e->second, std::string(spec.env)};
    }
  }
}

std::optional<RawValue> RawSettings::get(std::string_view key) const {
  if (auto it = m_values.find(key); it != m_values.end()) {
    return it->second;
  }
  return std::nullopt;
}

}  // namespace launcher
