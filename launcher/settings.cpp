#include "settings.hpp"

#include <stdexcept>

extern char** environ;  // NOLINT: POSIX

namespace launcher {

const std::vector<SettingSpec>& setting_specs() {
  static const std::vector<SettingSpec> specs = {
      // Cluster shape and identity.
      {"nodes", "--nodes", "RAYLAUNCH_NODES", "1", "total pods (Ray nodes) in the job, head included"},
      {"ordinal", "--ordinal", "RAYLAUNCH_ORDINAL", "JOB_COMPLETION_INDEX, else the hostname's -N suffix",
       "this pod's index: 0 is the head, 1..nodes-1 are workers"},
      {"hostname", "--hostname", "HOSTNAME", "gethostname()", "this pod's hostname (also Ray's --node-name)"},
      {"namespace", "--namespace", "POD_NAMESPACE", "none (set it from the Downward API)",
       "Kubernetes namespace of the pods, for the head's DNS name"},
      {"service", "--service", "RAYLAUNCH_SERVICE", "the subdomain of this pod's FQDN in /etc/hosts",
       "headless Service that gives the pods DNS names"},
      {"cluster_domain", "--cluster-domain", "RAYLAUNCH_CLUSTER_DOMAIN",
       "from /etc/hosts or /etc/resolv.conf, else cluster.local", "Kubernetes cluster DNS domain"},
      {"head_address", "--head-address", "RAYLAUNCH_HEAD_ADDRESS", "<base>-0.<service>.<namespace>.svc.<domain>",
       "head host name or IP, instead of deriving it"},
      {"ray_port", "--ray-port", "RAYLAUNCH_RAY_PORT", "6379", "GCS port of the head (ray start --port)"},
      {"node_manager_port", "--node-manager-port", "RAYLAUNCH_NODE_MANAGER_PORT", "6380",
       "raylet gRPC port, pinned so the worker liveness probe can find it"},
      {"join_timeout", "--join-timeout,--timeout", "RAYLAUNCH_JOIN_TIMEOUT", "300s",
       "how long the head waits for every node (300, 300s, 5m)"},
      // Ray.
      {"ray", "--ray", "RAYLAUNCH_RAY", "ray (on PATH)", "path of the ray CLI"},
      {"ray_args", "--ray-args", "RAYLAUNCH_RAY_ARGS", "none",
       "extra `ray start` arguments, space-separated; appended, and they win"},
      {"object_store_memory", "--object-store-memory", "RAYLAUNCH_OBJECT_STORE_MEMORY",
       "/dev/shm minus headroom for NCCL and DataLoader", "Ray object store size (bytes, 56Gi, 60G)"},
      // Node checks.
      {"checks", "--checks", "RAYLAUNCH_CHECKS", "strict", "node check policy: strict (a failure stops, exit 78), warn, off"},
      {"gpus", "--gpus", "RAYLAUNCH_GPUS", "from the instance type, else what is found",
       "GPUs this pod is expected to see"},
      {"efa", "--efa", "RAYLAUNCH_EFA", "from the instance type, else what is found",
       "EFA devices this pod is expected to see"},
      {"shm_min", "--shm-min", "RAYLAUNCH_SHM_MIN", "64Gi when GPUs are expected, else 1Gi",
       "smallest acceptable /dev/shm"},
      {"host_root", "--host-root", "RAYLAUNCH_HOST_ROOT", "/", "prefix for every read of /sys, /dev, /proc, /etc"},
      // GCS client.
      {"address", "--address", "RAYLAUNCH_GCS_ADDRESS", "this pod's head address",
       "GCS address HOST:PORT for wait and status"},
      {"probe_timeout", "--probe-timeout", "RAYLAUNCH_PROBE_TIMEOUT", "1s",
       "deadline of one probe; keep it below the kubelet's timeoutSeconds"},
      // Output.
      {"output", "--output", "RAYLAUNCH_OUTPUT", "text", "output of plan and status: text or json"},
      {"log_format", "--log-format", "RAYLAUNCH_LOG_FORMAT", "text", "log lines on stderr: text or json"},
      {"log_level", "--log-level", "RAYLAUNCH_LOG_LEVEL", "info", "debug, info, warn or error"},
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

RawSettings::RawSettings(const std::map<std::string, std::string>& flags, const EnvMap& env) {
  for (const SettingSpec& spec : setting_specs()) {
    const std::string key(spec.key);
    if (auto f = flags.find(key); f != flags.end()) {
      std::string first_flag(spec.flags.substr(0, spec.flags.find(',')));
      m_values[key] = RawValue{f->second, first_flag};
    } else if (auto e = env.find(std::string(spec.env)); e != env.end() && !e->second.empty()) {
      // An empty variable counts as unset: manifests often template `value: ""`.
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

EnvMap process_env() {
  EnvMap env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) {
      env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
    }
  }
  return env;
}

}  // namespace launcher
