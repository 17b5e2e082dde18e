#include <absl/synchronization/mutex.h>
#include <malloc.h>

#include <cstdio>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "gcs/gcs_channel.hpp"
#include "gcs/gcs_target.hpp"
#include "pod_facts.hpp"
#include "gcs/probe.hpp"

namespace launcher {

// A kubelet exec probe: one RPC, no node scan, no logging set-up, no fork. Prints one line
// (stdout when healthy, stderr when not) and exits 0 or 1; 64 for bad settings, as `plan`.
int cmd_probe(const std::string& kind, const Config& config, const EnvMap& env) {
  // One malloc arena: each of gRPC's ~7 short-lived threads would otherwise map (and unmap) an
  // arena of its own, a measurable share of a probe that lasts a few milliseconds.
  mallopt(M_ARENA_MAX, 1);
  // Debian's absl keeps Mutex deadlock detection on (a lock-graph update on every lock gRPC
  // takes; seen in profiles of this probe). A one-shot client has no use for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  gcs::route_grpc_logs();  // gRPC's own error lines would break the one-line contract
  const std::optional<gcs::AuthToken> token = gcs::auth_token_or_fatal(env);
  const PodIdentity id = resolve_identity(config, gather_identity_facts(config, env));
  const gcs::ProbeKind probe_kind = kind == "liveness" ? gcs::ProbeKind::liveness : gcs::ProbeKind::readiness;
  const gcs::ProbeResult result = gcs::run_probe(probe_kind, id, config, token);
  std::fprintf(result.healthy ? stdout : stderr, "raylaunch: probe %s (%s): %s: %s\n", kind.c_str(), to_string(id.role),
               result.healthy ? "healthy" : "unhealthy", result.line.c_str());
  return result.healthy ? exit_code::ok : exit_code::unhealthy;
}

}  // namespace launcher
