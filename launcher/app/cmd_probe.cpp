#include <absl/synchronization/mutex.h>
#include <malloc.h>

#include <cstdio>

#include "app/commands.hpp"
#include "app/gcs_target.hpp"
#include "gcs/probe.hpp"
#include "plan/pod_facts.hpp"
#include "util/exit_codes.hpp"

namespace launcher {

// A kubelet exec probe: one RPC (two for a worker's readiness: the GCS's version, then this pod's
// row in the layout that version filters on), no fork. Prints one line (stdout when healthy,
// stderr when not) and exits 0 or 1; 64 for bad settings, as `plan`.
int cmd_probe(const Invocation& inv) {
  // One malloc arena: each of gRPC's ~7 short-lived threads would otherwise map (and unmap) an
  // arena of its own, a measurable share of a probe that lasts a few milliseconds.
  mallopt(M_ARENA_MAX, 1);
  // Debian's absl keeps Mutex deadlock detection on (a lock-graph update on every lock gRPC
  // takes; seen in profiles of this probe). A one-shot client has no use for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const gcs::Credentials credentials = credentials_or_fatal(inv.config, inv.env);
  const PodIdentity id = resolve_identity(inv.config, gather_identity_facts(inv.config, inv.env, "/"));
  const ProbeKind kind = inv.argument == "liveness" ? ProbeKind::liveness : ProbeKind::readiness;
  const ProbeResult result = gcs::run_probe(kind, probe_target(id, inv.config), credentials);
  std::fprintf(result.healthy ? stdout : stderr, "raylaunch: probe %s (%s): %s: %s\n", inv.argument.c_str(),
               to_string(id.role), result.healthy ? "healthy" : "unhealthy", result.line.c_str());
  return result.healthy ? exit_code::ok : exit_code::unhealthy;
}

}  // namespace launcher
