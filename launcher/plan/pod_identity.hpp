#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "plan/pod_facts.hpp"
#include "plan/workload_identity.hpp"
#include "util/platform.hpp"

namespace launcher {

// How Kubernetes names the pods of a StatefulSet (`<name>-<ordinal>`) and the hostnames of an
// Indexed Job with a subdomain (`<job>-<index>`): the one place that knows the rule.

// "training-3" → 3. nullopt without a "-<digits>" suffix, or with one Kubernetes never writes
// ("-03": ordinals have no leading zeros, so "training-03" must not pass for "training-3").
std::optional<int> ordinal_suffix(std::string_view hostname);

// "training-3" → "training"; a name without an ordinal suffix is returned unchanged.
std::string base_name(const std::string& hostname);

// base-0 … base-(nodes-1): the pods of the job, in order.
std::vector<std::string> pod_names(const std::string& base, int nodes);

enum class Role { head, worker };
const char* to_string(Role r);

// The ordinal source of a one-node job whose pod has no ordinal of its own (no -N hostname, no
// --ordinal, no JOB_COMPLETION_INDEX): a workstation or a debugging shell as much as a pod.
inline constexpr const char* k_single_node_ordinal = "single node (nodes=1)";

// Who this pod is in the Ray cluster and where its head lives.
struct PodIdentity {
  Role role = Role::head;
  int ordinal = 0;
  std::string ordinal_source;  // e.g. "hostname training-3", "JOB_COMPLETION_INDEX"
  int nodes = 1;
  std::string nodes_source;    // "--nodes", "RAYLAUNCH_NODES", "default", "LWS_GROUP_SIZE", "PET_NNODES"
  std::optional<Workload> workload;  // the controller whose variables settled the identity, if any
  std::string workload_detail;       // what was read from it, for the plan
  // The workload's real pod names (LWS: <lws>-<group>[-<index>], JobSet: its hostnames);
  // nullopt: the StatefulSet/Indexed Job rule, base-0 … base-(nodes-1).
  std::optional<std::vector<std::string>> workload_pods;
  std::string hostname;        // also Ray's --node-name: unique and stable across restarts
  std::string base_name;       // hostname without "-<ordinal>": "training"
  std::string namespace_name;  // "" when unknown (allowed only for a 1-node job)
  std::string service;
  std::string service_source;
  std::string cluster_domain;
  std::string cluster_domain_source;
  std::string head_host;       // FQDN or override; "127.0.0.1" for a 1-node job with no DNS facts
  std::string head_host_source;
  int ray_port = platform::k_gcs_port;   // the GCS port this pod's head listens on (ray start --port)
  int head_port = platform::k_gcs_port;  // the port to dial: ray_port, or the one --head-address gave

  // "host:port", IPv6 in brackets: what RAYLAUNCH_HEAD_ADDRESS accepts back.
  std::string head_address() const;
  // Pod names the head expects to see join: the workload's, else base-0 … base-(nodes-1).
  std::vector<std::string> expected_node_names() const;
};

// Pure: settles role, ordinal, head FQDN from settings and facts. Throws Fatal(64) with one
// line per problem (no ordinal source, missing namespace, ordinal ≥ nodes, …).
PodIdentity resolve_identity(const Config& config, const PodFacts& facts);

}  // namespace launcher
