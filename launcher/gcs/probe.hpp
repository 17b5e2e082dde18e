#pragma once
#include <optional>
#include <string>

#include "config.hpp"
#include "gcs/auth_token.hpp"
#include "pod_identity.hpp"

namespace launcher::gcs {

enum class ProbeKind { liveness, readiness };

struct ProbeResult {
  bool healthy = false;
  std::string line;  // one line saying why, for the kubelet's event
};

// One try, one RPC, deadline `config.probe_timeout` (keep it below the kubelet's timeoutSeconds):
// - head, liveness and readiness: its GCS answers an empty CheckAlive on 127.0.0.1:<ray_port>.
//   For liveness an UNAUTHENTICATED answer still counts as alive (the process answered; a
//   restart cannot fix a token).
// - worker liveness: its own raylet answers grpc.health.v1.Health/Check on
//   127.0.0.1:<node_manager_port>. Deliberately not the head: restarting workers does not bring
//   a head back, and the raylet exits by itself after gcs_rpc_server_reconnect_timeout_s.
// - worker readiness: this pod's hostname has an ALIVE row in the head's GCS node table.
ProbeResult run_probe(ProbeKind kind, const PodIdentity& id, const Config& config,
                      const std::optional<AuthToken>& token);

}  // namespace launcher::gcs
