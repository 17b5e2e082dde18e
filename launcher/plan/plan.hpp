#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/node_labels.hpp"
#include "plan/ray_env.hpp"
#include "plan/object_store.hpp"
#include "plan/plan_items.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"

namespace launcher {

// The `ray start` argv (no shell). Head: --head --port; worker: --address=<head>:<port>.
// Both --block (raylaunch supervises it), --node-name=<hostname> (the GCS node table is deduped
// by it across pod restarts), a pinned --node-manager-port (the worker liveness probe) and
// --metrics-export-port (KubeRay's 8080, which the manifests declare and scrape).
// `config.ray_args` are appended; an option the user gives replaces ours of the same name
// (the ones raylaunch owns, such as --node-name, are refused when the settings are parsed).
// `labels`: the node labels' argument (NodeLabelsPlan::args), after ours.
std::vector<std::string> ray_start_argv(const Config& config, const PodIdentity& id, int num_gpus,
                                        const ObjectStoreSize& store, const std::vector<std::string>& labels = {});

// The gang fabric check (--fabric-check on), run after the join barrier: what it tests and its
// bounds. `run` carries it out (app/fabric_wait.cpp); `plan` shows it.
struct FabricCheckPlan {
  std::string provider;
  std::uint64_t min_bandwidth = 0;  // bytes/s; 0: no floor (only failed links count)
  std::string min_bandwidth_source;
  std::chrono::milliseconds timeout{0};
  std::string pingpong;             // the setting; "" : /opt/amazon/efa/bin, then PATH
  std::string device;               // this pod's first EFA device, "" when none
};

// Everything `run` will do, decided before anything starts. `plan` prints it; `run` executes it.
struct Plan {
  PodIdentity identity;
  ChecksPolicy checks_policy = ChecksPolicy::strict;
  std::vector<Check> checks;
  std::vector<EnvVar> env;              // in the order they are applied
  GcsTlsPlan tls;                       // Ray's TLS: on or off, and the paths of its files
  std::vector<Action> actions;          // process-level changes before ray start, in order
  ObjectStoreSize object_store;         // what --object-store-memory says, and why
  NodeLabelsPlan labels;                // Ray node labels (ray start --labels) and their sources
  std::vector<std::string> ray_start;   // argv, no shell: {"ray", "start", …}
  std::vector<std::string> command;     // the launch command (argv), may be empty
  std::chrono::milliseconds join_timeout{0};
  // The head's wait for its own GCS after `ray start`: the join timeout, or Ray's longer start-up
  // budget when the GCS opens a store on a volume (plan/gcs_store.hpp), whichever is longer.
  std::chrono::milliseconds local_gcs_timeout{0};
  // A quorum (--min-nodes below --nodes): the barrier is done once this many pods have been
  // ALIVE for quorum_grace. nullopt: exactly `identity.nodes`.
  std::optional<int> min_nodes;
  std::chrono::milliseconds quorum_grace{0};
  std::optional<FabricCheckPlan> fabric_check;  // nullopt: --fabric-check off, or one pod
  std::string instance_type;
  int expected_gpus = -1;               // -1: no expectation
  int expected_efa = -1;

  // 0, or 78 when a check failed under the strict policy: what `run` exits with before
  // starting anything.
  int exit_code() const;
  // `base` with this plan's variables applied (user values already in `base` are kept).
  EnvMap child_env(const EnvMap& base) const;
};

// Pure: pod facts and settings in, the plan out. Throws Fatal(64) for bad settings.
Plan make_plan(const Config& config, const PodFacts& facts, std::vector<std::string> command);

// For people: sections for identity, checks (with fixes), environment (with reasons),
// ray start argv and the command. Argv is shown quoted for reading only; nothing runs a shell.
std::string render_plan_text(const Plan& plan);

// The stable JSON schema "raylaunch.plan/v1" documented in docs/plan-json.md.
std::string render_plan_json(const Plan& plan);

// argv for display: words with spaces or shell metacharacters in single quotes; secrets
// redacted (redacted_argv).
std::string display_argv(const std::vector<std::string>& argv);

// `argv` as it may be shown anywhere (plan text and JSON, logs, the termination message):
// the value of --redis-password (`--redis-password=X` or `--redis-password X`) is "***", and
// so is any registered secret (util::redact). The Plan keeps the real argv; run executes that.
std::vector<std::string> redacted_argv(const std::vector<std::string>& argv);

}  // namespace launcher
