// The commands that look once and answer, then exit: `version`, `plan` (the Plan, printed),
// `probe` (one kubelet probe) and `status` (the GCS's node table, printed). `run`, `wait` and
// `redis-cleanup`, which wait and act, have files of their own.
#include <absl/synchronization/mutex.h>
#include <malloc.h>

#include <cstdio>

#include "app/commands.hpp"
#include "app/targets.hpp"
#include "gcs/gcs_client.hpp"
#include "gcs/probe.hpp"
#include "gcs/status_render.hpp"
#include "plan/plan.hpp"
#include "plan/pod_facts.hpp"
#include "util/exit_codes.hpp"
#include "util/fatal.hpp"
#include "version.hpp"

namespace launcher {

int cmd_version(const Invocation& /*inv*/) {
  std::printf("raylaunch %s (commit %s)\n", k_version, k_git_commit);
  return 0;
}

// Prints the plan; starts nothing, writes nothing. Exits with what `run` would exit with
// before starting anything: 0, 64 (bad settings, thrown earlier) or 78 (strict check failed).
int cmd_plan(const Invocation& inv) {
  const Plan plan = make_plan(inv.config, gather_pod_facts(inv.config, inv.env), inv.command);
  credentials_or_fatal(inv.config, inv.env);  // 64 where `run` would refuse Ray's token or TLS files
  const std::string text =
      inv.config.output == OutputFormat::json ? render_plan_json(plan) : render_plan_text(plan);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return plan.exit_code();
}

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

namespace {

// One GetAllNodeInfo; generous, since a loaded GCS with thousands of nodes is slow to list.
constexpr std::chrono::milliseconds k_status_timeout{10'000};

// 69 with one line; the token hint after UNAUTHENTICATED.
[[noreturn]] void fail(const GcsTarget& target, const gcs::RpcError& error, const gcs::Credentials& credentials) {
  const bool replied = error.grpc_code == 0;  // an error in GcsStatus, not in transport
  const std::string line =
      "GCS at " + target.address + (replied ? " replied with an error: " : " did not answer: ") + error.describe();
  throw Fatal(exit_code::unavailable, line + (error.unauthenticated() ? auth_hint(credentials) : ""));
}

}  // namespace

// Prints the GCS node table (or, with --count, the count alone); exit 0 when the GCS answered,
// 69 when it did not or refused our credentials.
int cmd_status(const Invocation& inv) {
  const gcs::Credentials credentials = credentials_or_fatal(inv.config, inv.env);
  const GcsTarget target = resolve_gcs_target(inv.config, inv.env);
  gcs::GcsClient client(target.address, credentials);
  const bool json = inv.config.output == OutputFormat::json;
  // --count asks for the same table: only names tell a pod restarted on a new IP from two pods.
  // The lighter GetAllNodeAddressAndLiveness (Ray >= 2.51) has addresses only, and Ray keeps a
  // crashed pod's old row ALIVE for 14 s (same IP) to 30-63 s (IP gone; Ray 2.60.0, docs/compat.md):
  // counted by address, that pod counted twice.
  const auto table = client.get_all_node_info(k_status_timeout);
  if (!table) {
    fail(target, table.error(), credentials);
  }
  const std::string text = inv.config.status_count ? gcs::render_status_count(table.value(), target.address, json)
                           : json                  ? gcs::render_status_json(table.value(), target.address)
                                                   : gcs::render_status_text(table.value(), target.address);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return exit_code::ok;
}

}  // namespace launcher
