#pragma once
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/pod_facts.hpp"

namespace launcher {

enum class Role { head, worker };
const char* to_string(Role r);

// Who this pod is in the Ray cluster and where its head lives.
struct PodIdentity {
  Role role = Role::head;
  int ordinal = 0;
  std::string ordinal_source;  // e.g. "hostname training-3", "JOB_COMPLETION_INDEX"
  int nodes = 1;
  std::string hostname;        // also Ray's --node-name: unique and stable across restarts
  std::string base_name;       // hostname without "-<ordinal>": "training"
  std::string namespace_name;  // "" when unknown (allowed only for a 1-node job)
  std::string service;
  std::string service_source;
  std::string cluster_domain;
  std::string cluster_domain_source;
  std::string head_host;       // FQDN or override; "127.0.0.1" for a 1-node job with no DNS facts
  std::string head_host_source;
  int ray_port = 6379;         // the GCS port this pod's head listens on (ray start --port)
  int head_port = 6379;        // the port to dial: ray_port, or the one --head-address gave

  // "host:port", IPv6 in brackets: what RAYLAUNCH_HEAD_ADDRESS accepts back.
  std::string head_address() const;
  // Pod names the head expects to see join: base-0 … base-(nodes-1).
  std::vector<std::string> expected_node_names() const;
};

// Pure: settles role, ordinal, head FQDN from settings and facts. Throws Fatal(64) with one
// line per problem (no ordinal source, missing namespace, ordinal ≥ nodes, …).
PodIdentity resolve_identity(const Config& config, const PodFacts& facts);

}  // namespace launcher
