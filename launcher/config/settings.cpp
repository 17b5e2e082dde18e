#include "config/settings.hpp"

#include "config/config.hpp"
#include "config/label_settings.hpp"
#include "config/redis_settings.hpp"
#include "config/setting_parsers.hpp"
#include "net/dns_name.hpp"
#include "util/platform.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

using namespace setting_parsers;
using std::chrono::milliseconds;
using C = Config;

// Ray's floor and a sanity ceiling for the object store: OBJECT_STORE_MINIMUM_MEMORY_BYTES =
// 75 MiB (ray_constants.py); 0 would make Ray fall back to its own 95 %-of-shm default.
constexpr std::uint64_t k_min_object_store = 75ULL << 20;
constexpr std::uint64_t k_max_bytes = 1ULL << 50;  // 1 PiB: larger is a typo
constexpr std::int64_t k_max_nodes = 100'000;

// Who reads what. `plan` reads exactly what `run` reads, so it validates what `run` would and
// prints the same plan.
constexpr Commands k_run = Command::run | Command::plan;
// What names this pod and its head: every command that works out a pod's identity; and Ray's
// TLS, for every command that talks to Ray's GCS or raylets (and `plan`, which shows it).
constexpr Commands k_ray_clients = k_run | Command::wait | Command::status | Command::probe;
// The external Redis of GCS fault tolerance (the head's preflight, `wait redis`, the cleanup).
constexpr Commands k_redis = k_run | Command::wait | Command::redis_cleanup;
constexpr Commands k_all = k_ray_clients | Command::redis_cleanup;

constexpr SettingKind k_bare_flag = SettingKind::bare_flag;

// A watch's switch: auto (when the pod has what it watches), on, off.
auto watch_mode() {
  return one_of<WatchMode>({{"auto", WatchMode::automatic}, {"on", WatchMode::on}, {"off", WatchMode::off}});
}

std::string tls_file_path(std::string_view text) { return util::is_printable_text(text) ? "" : "a file path"; }

}  // namespace

const std::vector<Setting>& settings() {
  // Columns: name, flags, env, default, default note (no fixed default), help, commands, field,
  // [kind], [docs]. Defaults cite where they come from when the number is Ray's or Kubernetes'.
  // The order is each command's --help order, the docs table's, and that of the error lines.
  static const std::vector<Setting> table = {
      // Cluster shape and identity.
      {"nodes", "--nodes", "RAYLAUNCH_NODES", "1", "", "total pods (Ray nodes) in the job, head included; "
       "LWS_GROUP_SIZE or PET_NNODES where set (a given value must agree)",
       k_ray_clients, into<&C::nodes>(int_in(1, k_max_nodes))},
      {"ordinal", "--ordinal", "RAYLAUNCH_ORDINAL", "", "LWS_WORKER_INDEX, PET_NODE_RANK or the JobSet pod's index, else JOB_COMPLETION_INDEX, else the "
       "hostname's -N suffix",
       "this pod's index: 0 is the head, 1..nodes-1 are workers", k_ray_clients,
       into<&C::ordinal>(int_in(0, k_max_nodes - 1))},
      {"hostname", "--hostname", "HOSTNAME", "", "gethostname()", "this pod's hostname (also Ray's --node-name)",
       k_ray_clients,
       into<&C::hostname>(dns_name(net::is_dns_label, "a pod host name such as training-3 (a DNS label: a-z, 0-9, "
                                                      "'-', at most 63 characters)"))},
      {"namespace", "--namespace", "POD_NAMESPACE", "", "none (set it from the Downward API)",
       "Kubernetes namespace of the pods, for the head's DNS name", k_ray_clients,
       into<&C::namespace_name>(dns_name(net::is_dns_label, "a Kubernetes namespace (a DNS label)"))},
      {"service", "--service", "RAYLAUNCH_SERVICE", "", "the subdomain of this pod's FQDN in /etc/hosts",
       "headless Service that gives the pods DNS names", k_ray_clients,
       into<&C::service>(dns_name(net::is_dns_label, "a Service name (a DNS label)"))},
      {"cluster_domain", "--cluster-domain", "RAYLAUNCH_CLUSTER_DOMAIN", "",
       "from /etc/hosts or /etc/resolv.conf, else cluster.local", "Kubernetes cluster DNS domain", k_ray_clients,
       into<&C::cluster_domain>(dns_name(net::is_dns_subdomain, "a DNS domain such as cluster.local"))},
      {"head_address", "--head-address", "RAYLAUNCH_HEAD_ADDRESS", "", "LWS_LEADER_ADDRESS or PET_MASTER_ADDR, else <base>-0.<service>.<namespace>.svc.<domain>",
       "the head's host[:port] (IPv6 in brackets), instead of deriving it; the port defaults to --ray-port",
       k_ray_clients, custom<&C::head_host>([](const std::string& t, Config& c) {
         const auto hp = net::parse_host_port(t, 0);
         if (!hp) {
           return hp.error();
         }
         c.head_host = hp->host;
         if (hp->port != 0) {
           c.head_port = hp->port;
         }
         return std::string();
       })},
      // Ray's DEFAULT_PORT (python/ray/_private/ray_constants.py).
      {"ray_port", "--ray-port", "RAYLAUNCH_RAY_PORT", platform::k_gcs_port_text, "", "GCS port of the head (ray start --port)",
       k_ray_clients, into<&C::ray_port>(int_in(1, 65535))},
      // The GCS client of wait and status.
      {"address", "--address", "RAYLAUNCH_GCS_ADDRESS", "", "this pod's head address",
       "GCS address HOST:PORT for wait and status", Command::wait | Command::status,
       custom<&C::address>([](const std::string& t, Config& c) {
         const auto hp = net::parse_host_port(t);
         if (!hp) {
           return hp.error();
         }
         c.address = *hp;
         return std::string();
       })},
      // Ours: Ray's default is 0 (random), which no probe can find.
      {"node_manager_port", "--node-manager-port", "RAYLAUNCH_NODE_MANAGER_PORT", platform::k_node_manager_port_text, "",
       "raylet gRPC port, pinned so the worker liveness probe can find it", k_run | Command::probe,
       into<&C::node_manager_port>(int_in(1, 65535))},
      // The probe's.
      {"probe_timeout", "--probe-timeout", "RAYLAUNCH_PROBE_TIMEOUT", "1s", "",
       "deadline of one probe; keep it below the kubelet's timeoutSeconds", Command::probe,
       into<&C::probe_timeout>(duration())},
      // KubeRay's metrics port (ray start --metrics-export-port=8080).
      {"metrics_export_port", "--metrics-export-port", "RAYLAUNCH_METRICS_EXPORT_PORT", platform::k_metrics_export_port_text, "",
       "Ray's Prometheus metrics port (ray start --metrics-export-port)", k_run,
       into<&C::metrics_export_port>(int_in(1, 65535))},
      {"join_timeout", "--join-timeout,--timeout", "RAYLAUNCH_JOIN_TIMEOUT", "300s", "",
       "how long the head waits for every node (and for Redis), and a worker for its head (300, 300s, 5m, 1m30s)",
       k_run | Command::wait | Command::redis_cleanup, into<&C::join_timeout>(duration()), SettingKind::value,
       "At most 168h; `redis-cleanup`: the wait for Redis, then the cleanup itself."},
      // Ray.
      {"ray", "--ray", "RAYLAUNCH_RAY", "ray", "", "the ray CLI: a path, or a name looked up on PATH", k_run,
       into<&C::ray>(text_checked([](std::string_view t) { return check_program(t, "/opt/venv/ray/bin/ray"); }))},
      {"ray_args", "--ray-args", "RAYLAUNCH_RAY_ARGS", "", "none",
       "extra `ray start` arguments, space-separated; appended, and they win (except the options raylaunch owns)",
       k_run, into<&C::ray_args>(setting_parsers::ray_args)},
      {"object_store_memory", "--object-store-memory", "RAYLAUNCH_OBJECT_STORE_MEMORY", "",
       "free /dev/shm minus headroom for NCCL and DataLoader", "Ray object store size (bytes, 56Gi, 60G)", k_run,
       into<&C::object_store_memory>(size_in(k_min_object_store, k_max_bytes)), SettingKind::value,
       "From 75Mi (Ray's minimum) to 1024Ti."},
      // Ray node labels (issue 28; docs/run.md#ray-node-labels): `ray start --labels`.
      {"default_labels", "--default-labels", "RAYLAUNCH_DEFAULT_LABELS", "on", "",
       "raylaunch's own Ray node labels (zone, region, market type, accelerator type, the pod's name and index): "
       "on or off (--node-labels are passed either way)",
       k_run, into<&C::default_labels>(one_of<bool>({{"on", true}, {"off", false}}))},
      {"zone", "--zone", "RAYLAUNCH_ZONE", "", "none (the base manifest passes the pod's topology.kubernetes.io/zone)",
       "the pod's availability zone, as Ray's label ray.io/availability-zone", k_run,
       into<&C::zone>(setting_parsers::label_value)},
      {"region", "--region", "RAYLAUNCH_REGION", "", "none (the base manifest passes the pod's topology.kubernetes.io/region)",
       "the pod's region, as Ray's label ray.io/availability-region", k_run,
       into<&C::region>(setting_parsers::label_value)},
      {"capacity_type", "--capacity-type", "RAYLAUNCH_CAPACITY_TYPE", "", "none",
       "how the node was bought, as its node pool labels it: on-demand, spot, reserved (karpenter.sh/capacity-type) "
       "or ON_DEMAND, SPOT, CAPACITY_BLOCK (eks.amazonaws.com/capacityType); Ray's label ray.io/market-type",
       k_run, into<&C::capacity_type>(setting_parsers::capacity_type)},
      {"node_labels", "--node-labels", "RAYLAUNCH_NODE_LABELS", "", "none",
       "extra Ray node labels, key=value,key=value (Kubernetes label syntax); they win over raylaunch's own", k_run,
       into<&C::node_labels>(setting_parsers::node_labels), SettingKind::value,
       "See [Ray node labels](#ray-node-labels)."},
      {"venv", "--venv", "RAYLAUNCH_VENV", "", "none",
       "a Python virtualenv: <venv>/bin goes first on PATH and VIRTUAL_ENV is set, for ray start and the command",
       k_run, into<&C::venv>(text_checked([](std::string_view t) {
         return check_absolute_path(t, "an absolute path to a virtualenv directory such as /opt/venv/openvla");
       }))},
      // Node checks.
      {"checks", "--checks", "RAYLAUNCH_CHECKS", "strict", "",
       "node check policy: strict (a failure stops, exit 78), warn, off", k_run,
       into<&C::checks>(one_of<ChecksPolicy>(
           {{"strict", ChecksPolicy::strict}, {"warn", ChecksPolicy::warn}, {"off", ChecksPolicy::off}}))},
      {"gpus", "--gpus", "RAYLAUNCH_GPUS", "", "from the instance type, else what is found",
       "GPUs this pod is expected to see", k_run, into<&C::gpus>(int_in(0, 64))},
      {"efa", "--efa", "RAYLAUNCH_EFA", "", "from the instance type, else what is found",
       "EFA devices this pod is expected to see", k_run, into<&C::efa>(int_in(0, 64))},
      {"shm_min", "--shm-min", "RAYLAUNCH_SHM_MIN", "", "64Gi when GPUs are expected, else 1Gi",
       "smallest acceptable /dev/shm", k_run, into<&C::shm_min>(size_in(0, k_max_bytes))},
      {"host_root", "--host-root", "RAYLAUNCH_HOST_ROOT", "/", "",
       "prefix for reads of node facts under /sys, /dev, /proc/driver, /proc/meminfo, /etc (plan, run)", k_run,
       into<&C::host_root>(text_checked([](std::string_view t) {
         return check_absolute_path(t, "an absolute directory path");
       }))},
      // Supervisor (run).
      {"on_success", "--on-success", "RAYLAUNCH_ON_SUCCESS", "exit", "",
       "after the command exits 0 on the head: exit (Jobs), or stay up until SIGTERM (StatefulSets)", k_run,
       into<&C::on_success>(one_of<OnSuccess>({{"exit", OnSuccess::exit}, {"stay", OnSuccess::stay}}))},
      {"forward_signals", "--forward-signals", "RAYLAUNCH_FORWARD_SIGNALS", "group", "",
       "where a signal for the command goes: its whole process group (group), or its process alone (leader); "
       "`ray start` always gets it alone",
       k_run,
       into<&C::forward_signals>(
           one_of<ForwardSignals>({{"group", ForwardSignals::group}, {"leader", ForwardSignals::leader}}))},
      {"health_port", "--health-port", "RAYLAUNCH_HEALTH_PORT", "0", "",
       "serve /livez, /readyz and /metrics over HTTP on this port (0: off)", k_run,
       into<&C::health_port>(int_in(0, 65535))},
      {"term_grace", "--term-grace", "RAYLAUNCH_TERM_GRACE", "30s", "",
       "after SIGTERM, how long the command gets before SIGKILL", k_run, into<&C::term_grace>(duration()),
       SettingKind::value, "On a worker, also its node's drain window."},
      {"ray_stop_grace", "--ray-stop-grace", "RAYLAUNCH_RAY_STOP_GRACE", "15s", "",
       "how long `ray start --block` gets to stop Ray's processes after SIGTERM before SIGKILL", k_run,
       into<&C::ray_stop_grace>(duration())},
      // Surviving what ends runs (issue 19): the head watch, in-place restarts, a quorum barrier.
      // More often than every 500 ms would ask the GCS more than the barrier's own polls do.
      {"head_watch", "--head-watch", "RAYLAUNCH_HEAD_WATCH", "2s", "",
       "worker: how often to ask the head's GCS for its cluster id and this node's row (two small RPCs; the cluster id alone before Ray 2.49); a new "
       "cluster or this node DEAD ends the pod at once (69). 0 or off: no watch",
       k_run, into<&C::head_watch>(duration_or_zero(milliseconds(500))), SettingKind::value,
       "At least 500ms; see [the head watch](#the-head-watch-workers)."},
      {"restarts", "--restarts", "RAYLAUNCH_RESTARTS", "0", "",
       "head: how many times to run the command again in place after a retryable failure (not 64/69/70/71/74/75/"
       "77/78/126/127, not SIGTERM or SIGINT), each after the join barrier again; 0: never",
       k_run, into<&C::restarts>(int_in(0, 1000)), SettingKind::value,
       "0 to 1000; see [in-place restarts](#in-place-restarts---restarts)."},
      {"restart_window", "--restart-window", "RAYLAUNCH_RESTART_WINDOW", "1h", "",
       "head: the window --restarts counts in (at most that many restarts within any such window)", k_run,
       into<&C::restart_window>(duration())},
      {"min_nodes", "--min-nodes", "RAYLAUNCH_MIN_NODES", "", "off: exactly --nodes",
       "head: a quorum; once this many pods are ALIVE for --quorum-grace, run the command with those present "
       "(RAYLAUNCH_NODES_PRESENT); the others still join Ray",
       k_run, into<&C::min_nodes>(int_in(1, k_max_nodes)), SettingKind::value,
       "From 1 to `--nodes`; see [a quorum barrier](#a-quorum-barrier---min-nodes)."},
      {"quorum_grace", "--quorum-grace", "RAYLAUNCH_QUORUM_GRACE", "60s", "",
       "head, with --min-nodes: how long a quorum waits for the rest before the command starts (0: at once)", k_run,
       into<&C::quorum_grace>(duration_or_zero(milliseconds(1)))},
      // Watches while the command runs (issue 27 items 2 and 3): the pod's EFA port counters (a
      // silent fallback of NCCL to TCP sockets) and NCCL's RAS (stuck collectives).
      {"efa_watch", "--efa-watch", "RAYLAUNCH_EFA_WATCH", "auto", "",
       "head: watch the pod's EFA port counters while the command runs (rates in /metrics; flat on every device "
       "means NCCL is on sockets): auto (when the pod has EFA devices), on, off",
       k_run, into<&C::efa_watch>(watch_mode()),
       SettingKind::value, "See [watching the fabric](#watching-the-fabric-while-the-command-runs)."},
      {"efa_idle_after", "--efa-idle-after", "RAYLAUNCH_EFA_IDLE_AFTER", "5m", "",
       "how long every EFA device's counters may stay flat while the command runs before raylaunch says NCCL is on "
       "sockets (one warning, a metric)",
       k_run, into<&C::efa_idle_after>(duration())},
      {"efa_idle_readyz", "--efa-idle-readyz", "RAYLAUNCH_EFA_IDLE_READYZ", "false", "",
       "fail /readyz while the EFA counters are flat (--efa-idle-after)", k_run, into<&C::efa_idle_readyz>(boolean()),
       k_bare_flag},
      {"nccl_ras", "--nccl-ras", "RAYLAUNCH_NCCL_RAS", "auto", "",
       "head: poll NCCL's RAS (NCCL >= 2.24) while the command runs, for stuck collectives: auto (quiet while nothing "
       "answers), on (warn when nothing answers), off",
       k_run, into<&C::nccl_ras>(watch_mode())},
      {"nccl_ras_address", "--nccl-ras-address", "RAYLAUNCH_NCCL_RAS_ADDRESS", "",
       "NCCL_RAS_ADDR, else 127.0.0.1:28028 (NCCL's)", "where NCCL's RAS listens: IP:port (or localhost:port)", k_run,
       into<&C::nccl_ras_address>(setting_parsers::nccl_ras_address)},
      {"nccl_ras_interval", "--nccl-ras-interval", "RAYLAUNCH_NCCL_RAS_INTERVAL", "30s", "",
       "how often to poll NCCL's RAS while the command runs", k_run,
       into<&C::nccl_ras_interval>([](const std::string& t, milliseconds& out) {
         const std::string why = duration(t, out);
         return !why.empty() || out >= milliseconds(100) ? why : std::string("a duration of at least 100ms");
       }),
       SettingKind::value, "At least 100ms."},
      {"nccl_ras_polls", "--nccl-ras-polls", "RAYLAUNCH_NCCL_RAS_POLLS", "10", "",
       "polls in a row a communicator may wait, unchanged, for some of its ranks before it is called stuck", k_run,
       into<&C::nccl_ras_polls>(int_in(2, 1000))},
      {"nccl_ras_on_stuck", "--nccl-ras-on-stuck", "RAYLAUNCH_NCCL_RAS_ON_STUCK", "warn", "",
       "a stuck collective: warn (log the lagging ranks and pods), or stop the command with 76, which --restarts "
       "runs again",
       k_run, into<&C::nccl_ras_on_stuck>(one_of<OnStuck>({{"warn", OnStuck::warn}, {"stop", OnStuck::stop}}))},
      {"exec", "--exec", "RAYLAUNCH_EXEC", "false", "",
       "after the barrier, replace raylaunch with the command (execve), for images with their own init; "
       "not with --on-success stay or --health-port",
       k_run, into<&C::exec>(boolean()), k_bare_flag},
      // The gang fabric check (issue 27, docs/run.md#the-gang-fabric-check).
      {"fabric_check", "--fabric-check", "RAYLAUNCH_FABRIC_CHECK", "off", "",
       "after the join barrier, test every pod's fabric link to its ring neighbour with fi_pingpong; the head "
       "prints the table and judges it under --checks (strict: 78): off or on",
       k_run, into<&C::fabric_check>(one_of<bool>({{"off", false}, {"on", true}}))},
      {"fabric_provider", "--fabric-provider", "RAYLAUNCH_FABRIC_PROVIDER", "efa", "",
       "the libfabric provider the fabric check tests (fi_pingpong -p): efa, or any fi_info lists (tcp in tests)",
       k_run, into<&C::fabric_provider>(text_checked([](std::string_view t) {
         const bool ok = !t.empty() && t.size() <= 64 &&
                         t.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_;-") == std::string_view::npos;
         return ok ? "" : "a provider name such as efa or tcp";
       }))},
      {"fabric_min_bandwidth", "--fabric-min-bandwidth", "RAYLAUNCH_FABRIC_MIN_BANDWIDTH", "",
       "the instance table's floor (a quarter of one EFA device's line rate), else none",
       "the fabric check's floor per link, bytes/s (10G, 500M): a link below it is named", k_run,
       into<&C::fabric_min_bandwidth>(size_in(1, k_max_bytes))},
      {"fabric_check_timeout", "--fabric-check-timeout", "RAYLAUNCH_FABRIC_CHECK_TIMEOUT", "30s", "",
       "the fabric check's bound: each pod's part, and the head's wait for every link's result", k_run,
       into<&C::fabric_check_timeout>(duration())},
      {"fabric_pingpong", "--fabric-pingpong", "RAYLAUNCH_FABRIC_PINGPONG", "",
       "/opt/amazon/efa/bin/fi_pingpong, else fi_pingpong on PATH", "libfabric's fi_pingpong: a path, or a name "
       "looked up on PATH",
       k_run, into<&C::fabric_pingpong>(text_checked([](std::string_view t) {
         return check_program(t, "/opt/amazon/efa/bin/fi_pingpong");
       }))},
      // Kubernetes' default terminationMessagePath.
      {"termination_log", "--termination-log", "RAYLAUNCH_TERMINATION_LOG", platform::k_termination_log, "",
       "file for the one-line reason raylaunch exited (Kubernetes termination message)", k_run,
       into<&C::termination_log>(text_checked([](std::string_view t) {
         return check_absolute_path(t, "an absolute file path");
       }))},
      // Output.
      {"output", "--output", "RAYLAUNCH_OUTPUT", "text", "", "output of plan and status: text or json",
       k_run | Command::status,
       into<&C::output>(one_of<OutputFormat>({{"text", OutputFormat::text}, {"json", OutputFormat::json}}))},
      {"status_count", "--count", "RAYLAUNCH_STATUS_COUNT", "false", "",
       "status: print only the count of ALIVE pods, counted by node name as wait counts them", Command::status,
       into<&C::status_count>(boolean()), k_bare_flag},
      // Ray's TLS (ray_config_def.h USE_TLS, TLS_SERVER_CERT, TLS_SERVER_KEY, TLS_CA_CERT): Ray's own
      // names, so one set of variables configures Ray and raylaunch alike.
      {"use_tls", "--use-tls", "RAY_USE_TLS", "false", "",
       "mutual TLS to Ray's GCS and raylets, as Ray's servers require with RAY_USE_TLS=1 (1|true, 0|false)",
       k_ray_clients, into<&C::use_tls>(ray_bool), k_bare_flag,
       "See [TLS](gcs.md#tls-ray_use_tls); `1` or `true` in any case, as Ray reads it."},
      {"tls_server_cert", "--tls-server-cert", "RAY_TLS_SERVER_CERT", "", "none",
       "with TLS: this pod's certificate (PEM), presented as client certificate as Ray's own clients do",
       k_ray_clients, into<&C::tls_server_cert>(text_checked(tls_file_path))},
      {"tls_server_key", "--tls-server-key", "RAY_TLS_SERVER_KEY", "", "none",
       "with TLS: the private key of RAY_TLS_SERVER_CERT (PEM, unencrypted)", k_ray_clients,
       into<&C::tls_server_key>(text_checked(tls_file_path)), SettingKind::value, "Never printed."},
      {"tls_ca_cert", "--tls-ca-cert", "RAY_TLS_CA_CERT", "", "none",
       "with TLS: the CA certificate(s) that servers' certificates must chain to (PEM)", k_ray_clients,
       into<&C::tls_ca_cert>(text_checked(tls_file_path))},
      // GCS fault tolerance: an external Redis keeps the head's tables (ray-gcs-wire.md §1, anchors.md A4).
      // Ray reads RAY_REDIS_ADDRESS and RAY_external_storage_namespace itself; REDIS_PASSWORD and
      // REDIS_USERNAME are KubeRay's names, which raylaunch passes as ray start --redis-password/-username.
      {"redis_address", "--redis-address", "RAY_REDIS_ADDRESS", "", "none: no GCS fault tolerance",
       "Redis of GCS fault tolerance, host:port, redis://host:port or rediss://host:port (TLS); the head waits "
       "until it answers",
       k_redis, custom<&C::redis_address>([](const std::string& t, Config& c) {
         if (const std::string password = password_in_redis_url(t); !password.empty()) {
           util::add_secret(password);  // refused below; never echoed
         }
         const auto hp = parse_redis_address(t);
         if (!hp) {
           return hp.error();
         }
         c.redis_address = *hp;
         c.redis_address_text = t;
         c.redis_tls.enabled = redis_address_uses_tls(t);
         return std::string();
       }),
       SettingKind::value, "See [GCS fault tolerance](gcs-fault-tolerance.md)."},
      {"redis_username", "--redis-username", "REDIS_USERNAME", "", "none: Redis' default user",
       "Redis ACL user (Redis 6+), sent with REDIS_PASSWORD", k_redis,
       into<&C::redis_username>(text_checked(check_redis_username))},
      {"redis_password", "", "REDIS_PASSWORD", "", "none: no AUTH",
       "Redis password; environment only (from a Secret), never printed", k_redis,
       custom<&C::redis_password>([](const std::string& t, Config& c) {
         util::add_secret(t);  // from here on, no log line can show it
         c.redis_password = t;
         return check_redis_password(t);
       }),
       SettingKind::secret,
       "A flag would be readable in `/proc/<pid>/cmdline`. Passed to `ray start --redis-password`, shown as `***`."},
      // Ray's default external_storage_namespace (ray_config_def.h).
      {"storage_namespace", "--storage-namespace", "RAY_external_storage_namespace", "default", "",
       "this cluster's key prefix in Redis (RAY<ns>@…): unique per Ray cluster sharing one Redis", k_redis,
       into<&C::storage_namespace>(text_checked(check_storage_namespace)), SettingKind::value,
       "`redis-cleanup` needs it given."},
      // The embedded GCS store (Ray 2.60, REP-64): Ray's own variable names, so that one env block
      // configures Ray's GCS and raylaunch's preflight (docs/run.md, the head's GCS on a volume).
      {"gcs_storage", "--gcs-storage", "RAY_gcs_storage", "memory", "",
       "where the head's GCS keeps its tables: memory (Ray's default; Redis with RAY_REDIS_ADDRESS), redis, or "
       "rocksdb (a volume at RAY_gcs_storage_path, Ray 2.60+)",
       k_run, into<&C::gcs_storage>(one_of<GcsStorage>(
                  {{"memory", GcsStorage::memory}, {"redis", GcsStorage::redis}, {"rocksdb", GcsStorage::rocksdb}})),
       SettingKind::value, "See [the store on the head](#the-store-on-the-head---gcs-storage-rocksdb)."},
      {"gcs_storage_path", "--gcs-storage-path", "RAY_gcs_storage_path", "", "none",
       "with rocksdb: the head's directory on a persistent volume (checked before ray start)", k_run,
       into<&C::gcs_storage_path>(text_checked([](std::string_view t) {
         return check_absolute_path(t, "an absolute directory path such as /data/gcs");
       }))},
      {"gcs_storage_min_free", "--gcs-storage-min-free", "RAYLAUNCH_GCS_STORAGE_MIN_FREE", "256Mi", "",
       "with rocksdb: the least free space the head's volume must have before ray start", k_run,
       into<&C::gcs_storage_min_free>(size_in(0, k_max_bytes))},
      // Redis over TLS: Ray's own variables (ray_config_def.h REDIS_CA_CERT, REDIS_CA_PATH,
      // REDIS_CLIENT_CERT, REDIS_CLIENT_KEY, REDIS_SERVER_NAME), read by Ray's GCS as well.
      {"redis_ca_cert", "--redis-ca-cert", "RAY_REDIS_CA_CERT", "", "none: the system's trust store",
       "with rediss://: the CA certificate(s), PEM, that the Redis server's certificate must chain to", k_redis,
       into<&C::redis_tls, &RedisTlsSettings::ca_cert>(text_checked(check_tls_path)), SettingKind::value,
       "See [Redis over TLS](gcs-fault-tolerance.md#redis-over-tls)."},
      {"redis_ca_path", "--redis-ca-path", "RAY_REDIS_CA_PATH", "", "none",
       "with rediss://: a directory of CA certificates named by hash (openssl rehash)", k_redis,
       into<&C::redis_tls, &RedisTlsSettings::ca_path>(text_checked(check_tls_path))},
      {"redis_client_cert", "--redis-client-cert", "RAY_REDIS_CLIENT_CERT", "", "none: no client certificate",
       "with rediss://: a client certificate (PEM) for a Redis that asks for one; needs RAY_REDIS_CLIENT_KEY",
       k_redis, into<&C::redis_tls, &RedisTlsSettings::client_cert>(text_checked(check_tls_path))},
      {"redis_client_key", "--redis-client-key", "RAY_REDIS_CLIENT_KEY", "", "none",
       "with rediss://: the private key of RAY_REDIS_CLIENT_CERT (PEM, unencrypted)", k_redis,
       into<&C::redis_tls, &RedisTlsSettings::client_key>(text_checked(check_tls_path)), SettingKind::value,
       "Never printed."},
      {"redis_server_name", "--redis-server-name", "RAY_REDIS_SERVER_NAME", "", "the host of RAY_REDIS_ADDRESS",
       "with rediss://: the name the server's certificate must carry (and SNI)", k_redis,
       into<&C::redis_tls, &RedisTlsSettings::server_name>(text_checked(check_tls_server_name))},
      {"dry_run", "--dry-run", "RAYLAUNCH_DRY_RUN", "false", "",
       "redis-cleanup: find and count the keys, delete nothing",
       Command::redis_cleanup, into<&C::dry_run>(boolean()), k_bare_flag},
      {"log_format", "--log-format", "RAYLAUNCH_LOG_FORMAT", "text", "", "log lines on stderr: text or json", k_all,
       into<&C::log_format>(one_of<LogFormat>({{"text", LogFormat::text}, {"json", LogFormat::json}}))},
      {"log_level", "--log-level", "RAYLAUNCH_LOG_LEVEL", "info", "", "debug, info, warn or error", k_all,
       custom<&C::log_level>([](const std::string& t, Config& c) {
         for (const char* level : {"debug", "info", "warn", "error"}) {
           if (t == level) {
             c.log_level = t;
             return std::string();
           }
         }
         return std::string("one of debug|info|warn|error");
       })},
  };
  return table;
}

}  // namespace launcher
