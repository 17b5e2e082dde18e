#pragma once
#include <cstdint>
#include <string>
#include <string_view>

// The numbers, paths and words raylaunch does not choose: Ray's, Kubernetes' and the kubelet's.
// One place, each with where it comes from (the facts are gathered in /work/shared/reference/:
// ray-gcs-wire.md, anchors.md, supervisor.md, fabric-and-node-checks.md). The rest of util/
// knows nothing of Ray or Kubernetes; this file is what every layer above shares of them.

namespace launcher::platform {

// The settings table takes defaults as text; a port is written once, as text, and read here.
constexpr int port_number(std::string_view text) {
  int n = 0;
  for (const char c : text) {
    n = n * 10 + (c - '0');
  }
  return n;
}

// --- Ray -------------------------------------------------------------------------------------

// The GCS port of `ray start --head` when --port is not given: DEFAULT_PORT = 6379
// (python/ray/_private/ray_constants.py, ray 2.9.0 to 2.60; ray-gcs-wire.md §1).
inline constexpr std::string_view k_gcs_port_text = "6379";
inline constexpr int k_gcs_port = port_number(k_gcs_port_text);

// The raylet's gRPC port. Ours, not Ray's: Ray's default is 0 (a random port, which no probe can
// find), so raylaunch pins it and the worker's liveness probe asks it (gcs/probe.hpp).
inline constexpr std::string_view k_node_manager_port_text = "6380";
inline constexpr int k_node_manager_port = port_number(k_node_manager_port_text);

// KubeRay's metrics port: it starts every pod with `ray start --metrics-export-port=8080` and
// its manifests declare and scrape that port (anchors.md, KubeRay "Default ports").
inline constexpr std::string_view k_metrics_export_port_text = "8080";
inline constexpr int k_metrics_export_port = port_number(k_metrics_export_port_text);

// Where a pod reaches its own Ray servers: `ray start --head` binds the GCS on every interface
// (and on localhost only when the node IP is 127.0.0.1, ray-gcs-wire.md §1), so 127.0.0.1
// reaches it either way; the worker's liveness probe dials its own raylet there too.
inline constexpr const char* k_loopback = "127.0.0.1";

// Ray's bounds on --object-store-memory (python/ray/_private/ray_constants.py):
// OBJECT_STORE_MINIMUM_MEMORY_BYTES = 75 MiB, DEFAULT_OBJECT_STORE_MAX_MEMORY_BYTES = 200e9, and
// REQUIRE_SHM_SIZE_THRESHOLD = 10**10: a store larger than /dev/shm's free space and above it is
// refused (services.py, determine_plasma_store_config; fabric-and-node-checks.md §6).
inline constexpr std::uint64_t k_ray_min_object_store = 75ULL << 20;
inline constexpr std::uint64_t k_ray_max_object_store = 200'000'000'000ULL;
inline constexpr std::uint64_t k_ray_require_shm_threshold = 10'000'000'000ULL;

// Where Ray's token loader looks for Kubernetes tokens (src/ray/rpc/authentication/
// k8s_constants.h; ray-gcs-wire.md "Token authentication"): kRaySaTokenPath, the projected
// service-account token KubeRay mounts there (Ray 2.55+, RAY_ENABLE_K8S_TOKEN_AUTH; with no audience
// of its own: Ray's TokenReview names none, so the API server's audience), and
// kK8sSaTokenPath, the pod's service-account token (Ray 2.52-2.53, RAY_AUTH_MODE=k8s).
inline constexpr const char* k_ray_service_account_token = "/var/run/secrets/ray.io/serviceaccount/token";
inline constexpr const char* k_k8s_service_account_token = "/var/run/secrets/kubernetes.io/serviceaccount/token";

// --- NCCL ------------------------------------------------------------------------------------

// Where NCCL's RAS (NCCL >= 2.24) listens for clients unless NCCL_RAS_ADDR says otherwise:
// "localhost:" NCCL_RAS_CLIENT_PORT, 28028 (src/ras/client_support.cc rasClientInitSocket and
// src/ras/ras_internal.h, NVIDIA/nccl v2.30.4).
inline constexpr int k_nccl_ras_port = 28028;
inline constexpr const char* k_nccl_ras_addr_env = "NCCL_RAS_ADDR";

// --- Kubernetes ------------------------------------------------------------------------------

// The container's shared-memory tmpfs: 64 MiB unless an emptyDir {medium: Memory} is mounted
// there (KubeRay mounts one sized to the memory limit; fabric-and-node-checks.md §6). NCCL and
// Ray's object store live in it.
inline constexpr const char* k_shm_dir = "/dev/shm";

// The default terminationMessagePath of a container: the kubelet shows what is written there as
// the container's termination message (Kubernetes API, Container.terminationMessagePath;
// supervisor.md).
inline constexpr const char* k_termination_log = "/dev/termination-log";

}  // namespace launcher::platform

namespace launcher {

// The two questions a kubelet asks a container (Kubernetes livenessProbe and readinessProbe):
// asked by `raylaunch probe liveness|readiness` and the resident /livez and /readyz alike.
enum class ProbeKind { liveness, readiness };

// A probe's answer: healthy or not, and one line saying why, for the kubelet's event.
struct ProbeResult {
  bool healthy = false;
  std::string line;
};

}  // namespace launcher
