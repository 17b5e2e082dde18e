#pragma once
#include <optional>
#include <string>
#include <vector>

#include "util/env_map.hpp"

namespace launcher {

using util::EnvMap;

// Identity that a workload controller hands its pods, read from the environment alone (pure):
// - LeaderWorkerSet (sigs.k8s.io/lws v0.10.0, pkg/utils/pod AddLWSVariables): LWS_LEADER_ADDRESS
//   (`<lws>-<group>.<subdomain>.<namespace>`), LWS_WORKER_INDEX (0: the leader), LWS_GROUP_SIZE.
//   Pods: leader `<lws>-<group>`, workers `<lws>-<group>-<index>`.
// - Kubeflow Trainer v2 (the torch runtime): PET_NODE_RANK, PET_MASTER_ADDR, PET_NNODES.
// - JobSet (sigs.k8s.io/jobset v0.12.0) sets no variables of its own: the pod's JOBSET_NAME comes
//   from the Downward API (the `jobset.sigs.k8s.io/jobset-name` annotation, as JobSet's own
//   in-place restart agent reads it), the Job's JOB_COMPLETION_INDEX, and the hostname JobSet
//   gives the pod, `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>`. raylaunch's shape is two
//   replicated jobs of one Job each: `head` (1 pod, ordinal 0) and `workers` (nodes-1 pods,
//   ordinals 1..), so the head has a template, a probe set and a success policy of its own.
// A value that is there but wrong is an error, never a guess: the caller exits 64.

enum class Workload { lws, jobset, trainer };
const char* to_string(Workload w);     // "LeaderWorkerSet", "JobSet", "Kubeflow Trainer"
const char* json_name(Workload w);     // "lws", "jobset", "trainer"

// The JobSet replicated jobs raylaunch's shape expects (docs/deploy.md, manifests/overlays/jobset).
inline constexpr const char* k_jobset_head_job = "head";
inline constexpr const char* k_jobset_workers_job = "workers";

struct WorkloadIdentity {
  Workload kind = Workload::lws;
  int ordinal = 0;
  std::string ordinal_source;       // "LWS_WORKER_INDEX", "PET_NODE_RANK", "JobSet hostname ..."
  std::optional<int> nodes;         // nullopt: the workload does not say (JobSet): RAYLAUNCH_NODES
  std::string nodes_source;
  std::string head_host;            // "" : derived under the pod's subdomain from head_pod (JobSet)
  std::string head_host_source;
  std::string head_pod;             // the head pod's name (its hostname)
  // Worker k (ordinal k, 1..nodes-1) is named worker_prefix + (k + worker_offset).
  std::string worker_prefix;
  int worker_offset = 0;
  bool names_known = false;         // false: the pods' names are not derivable (Trainer, other hostnames)
  std::string detail;               // one line for the plan: what was read

  // The pods of the Ray cluster in ordinal order (head first); empty when !names_known.
  std::vector<std::string> pod_names(int node_count) const;
};

// nullopt when no workload's variables are set. The first workload whose variables are present
// wins: LWS, then Trainer (which runs on JobSet, so its pods carry JobSet's facts too), then
// JobSet. Throws Fatal(64) with one line per problem in what is present.
std::optional<WorkloadIdentity> workload_identity(const EnvMap& env, const std::string& hostname);

}  // namespace launcher
