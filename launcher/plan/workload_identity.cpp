#include "plan/workload_identity.hpp"

#include <algorithm>
#include <initializer_list>

#include "net/dns_name.hpp"
#include "plan/pod_identity.hpp"
#include "util/fatal.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

const char* to_string(Workload w) {
  switch (w) {
    case Workload::lws:
      return "LeaderWorkerSet";
    case Workload::jobset:
      return "JobSet";
    case Workload::trainer:
      return "Kubeflow Trainer";
  }
  return "?";
}

const char* json_name(Workload w) {
  switch (w) {
    case Workload::lws:
      return "lws";
    case Workload::jobset:
      return "jobset";
    case Workload::trainer:
      return "trainer";
  }
  return "?";
}

std::vector<std::string> WorkloadIdentity::pod_names(int node_count) const {
  std::vector<std::string> names;
  if (!names_known || node_count < 1) {
    return names;
  }
  names.push_back(head_pod);
  for (int k = 1; k < node_count; ++k) {
    names.push_back(worker_prefix + std::to_string(k + worker_offset));
  }
  return names;
}

namespace {

// The most pods a Ray cluster may have: RAYLAUNCH_NODES's own bound.
constexpr int k_max_nodes = 100'000;

// Reads one variable the controller sets. A variable that is present is held to its rules even
// when empty: an empty LWS_LEADER_ADDRESS (a race in the pod's creation, or a template that
// overrode it) must stop the pod, not send a worker to "" for two minutes of DNS retries.
class Reader {
 public:
  Reader(const EnvMap& env, const char* workload) : m_env(env), m_workload(workload) {}

  const std::string* present(const char* name) const {
    const auto it = m_env.find(name);
    return it == m_env.end() ? nullptr : &it->second;
  }

  bool any_present(std::initializer_list<const char*> names) const {
    return std::any_of(names.begin(), names.end(), [this](const char* n) { return present(n) != nullptr; });
  }

  // An index below `count` (read from `count_name`), or below the most pods where the count
  // itself is unusable (already said).
  std::optional<int> index(const char* name, const std::optional<int>& count, const char* count_name) {
    return count ? number(name, 0, *count - 1, " (below " + std::string(count_name) + "=" + std::to_string(*count) + ")")
                 : number(name, 0, k_max_nodes - 1);
  }

  // A whole number in [min, max]; `bound` says where max came from, for the message.
  std::optional<int> number(const char* name, int min, int max, const std::string& bound = "") {
    const std::string* value = need(name);
    if (!value) {
      return std::nullopt;
    }
    const auto n = util::parse_int(*value, min, max);
    if (!n) {
      problems.push_back(bad_setting(name, *value, n.error() + bound + "; " + m_workload + " sets it: " +
                                                       "do not override it in the pod template"));
      return std::nullopt;
    }
    return static_cast<int>(*n);
  }

  // A host name as Kubernetes issues them (lowercase labels): the head's address.
  std::optional<std::string> host(const char* name) {
    const std::string* value = need(name);
    if (!value) {
      return std::nullopt;
    }
    if (!net::is_dns_subdomain(*value)) {
      problems.push_back(bad_setting(name, *value, std::string("a DNS name such as training-0.training.ml; ") +
                                                       m_workload + " sets it: do not override it in the " +
                                                       "pod template"));
      return std::nullopt;
    }
    return *value;
  }

  std::vector<std::string> problems;

 private:
  const std::string* need(const char* name) {
    const std::string* value = present(name);
    if (!value) {
      problems.push_back(std::string(name) + ": not set, while other " + m_workload + " variables are (" +
                         m_workload + " sets them together: is the pod template overriding its env?)");
    }
    return value;
  }

  const EnvMap& m_env;
  std::string m_workload;
};

// LWS and Trainer name all three in variables: each value with the variable it came from.
void settle(WorkloadIdentity& id, int ordinal, const char* ordinal_var, int nodes, const char* nodes_var,
            const std::string& head, const char* head_var) {
  id.ordinal = ordinal;
  id.ordinal_source = ordinal_var;
  id.nodes = nodes;
  id.nodes_source = nodes_var;
  id.head_host = head;
  id.head_host_source = head_var;
}

std::optional<WorkloadIdentity> from_lws(const EnvMap& env, const std::string& hostname) {
  Reader r(env, "LeaderWorkerSet");
  if (!r.any_present({"LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX", "LWS_GROUP_SIZE"})) {
    return std::nullopt;
  }
  WorkloadIdentity id;
  id.kind = Workload::lws;
  const auto size = r.number("LWS_GROUP_SIZE", 1, k_max_nodes);
  const auto index = r.index("LWS_WORKER_INDEX", size, "LWS_GROUP_SIZE");
  const auto leader = r.host("LWS_LEADER_ADDRESS");
  if (leader) {
    // `<lws>-<group>.<subdomain>.<namespace>`: the first label is the leader pod's name.
    const std::string pod = leader->substr(0, leader->find('.'));
    if (!ordinal_suffix(pod) || leader->find('.') == std::string::npos) {
      r.problems.push_back(bad_setting("LWS_LEADER_ADDRESS", *leader,
                                       "<lws>-<group>.<subdomain>.<namespace>, as LeaderWorkerSet writes it"));
    } else {
      id.head_pod = pod;
      id.worker_prefix = pod + "-";
      id.names_known = true;
    }
  }
  if (!r.problems.empty()) {
    throw Fatal(exit_code::usage, r.problems);
  }
  // The barrier names pods by their hostnames (Ray's --node-name): a hostname that is not the
  // one LWS gives this index would have the head wait for a name that never joins.
  const std::string want = *index == 0 ? id.head_pod : id.worker_prefix + std::to_string(*index);
  if (hostname != want) {
    throw Fatal(exit_code::usage, "hostname \"" + util::printable(hostname) + "\" is not the LeaderWorkerSet pod " +
                                      want + " that LWS_LEADER_ADDRESS and LWS_WORKER_INDEX=" +
                                      std::to_string(*index) + " name (unset --hostname/HOSTNAME: LWS names its pods, " +
                                      "and the head's barrier waits for those names)");
  }
  settle(id, *index, "LWS_WORKER_INDEX", *size, "LWS_GROUP_SIZE", *leader, "LWS_LEADER_ADDRESS");
  id.detail = "group " + id.head_pod + ", worker index " + std::to_string(*index) + " of " + std::to_string(*size);
  return id;
}

std::optional<WorkloadIdentity> from_trainer(const EnvMap& env, const std::string& hostname) {
  Reader r(env, "Kubeflow Trainer");
  if (!r.any_present({"PET_NODE_RANK", "PET_MASTER_ADDR", "PET_NNODES"})) {
    return std::nullopt;
  }
  WorkloadIdentity id;
  id.kind = Workload::trainer;
  std::optional<int> nnodes;
  if (const std::string* raw = r.present("PET_NNODES"); raw && raw->find(':') != std::string::npos) {
    // torchrun's elastic "MIN:MAX": a Ray cluster's barrier needs one count.
    r.problems.push_back(bad_setting("PET_NNODES", *raw, "a fixed node count; an elastic MIN:MAX range cannot "
                                                         "size the join barrier (set numNodes in the TrainJob)"));
  } else {
    nnodes = r.number("PET_NNODES", 1, k_max_nodes);
  }
  const auto rank = r.index("PET_NODE_RANK", nnodes, "PET_NNODES");
  // PET_MASTER_PORT is torch's rendezvous port (29400), not the GCS's: Ray keeps --ray-port.
  const auto master = r.host("PET_MASTER_ADDR");
  if (!r.problems.empty()) {
    throw Fatal(exit_code::usage, r.problems);
  }
  settle(id, *rank, "PET_NODE_RANK", *nnodes, "PET_NNODES", *master, "PET_MASTER_ADDR");
  // The torch runtime's pods are one Indexed Job: `<trainjob>-node-0-<rank>`, rank = the index.
  if (ordinal_suffix(hostname) == rank) {
    const std::string base = base_name(hostname);
    id.head_pod = base + "-0";
    id.worker_prefix = base + "-";
    id.names_known = true;
  }
  id.detail = "rank " + std::to_string(*rank) + " of " + std::to_string(*nnodes) + ", master " + *master;
  return id;
}

std::optional<WorkloadIdentity> from_jobset(const EnvMap& env, const std::string& hostname) {
  Reader r(env, "the JobSet's Job");
  const std::string* name = r.present("JOBSET_NAME");
  if (!name) {
    return std::nullopt;
  }
  if (!net::is_dns_label(*name)) {
    throw Fatal(exit_code::usage,
                bad_setting("JOBSET_NAME", *name, "a JobSet name (a DNS label), from the Downward API: "
                                                  "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"));
  }
  if (!r.present("JOB_COMPLETION_INDEX")) {
    // The Job controller sets it only in Indexed Jobs.
    throw Fatal(exit_code::usage, "JOB_COMPLETION_INDEX: not set in a pod of JobSet " + *name +
                                      " (make both replicated jobs completionMode: Indexed)");
  }
  const auto index = r.number("JOB_COMPLETION_INDEX", 0, k_max_nodes - 1);
  if (!r.problems.empty()) {
    throw Fatal(exit_code::usage, r.problems);
  }
  // `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>` (jobset placement.GenPodName): with the JobSet's
  // name known and the pod index the completion index, the rest splits without guessing.
  const std::string shape = "<jobset>-<replicatedJob>-<jobIndex>-<podIndex>";
  const std::string tail = "-" + std::to_string(*index);
  const std::string prefix = *name + "-";
  std::string middle;
  if (hostname.size() > prefix.size() + tail.size() && hostname.starts_with(prefix) && hostname.ends_with(tail)) {
    middle = hostname.substr(prefix.size(), hostname.size() - prefix.size() - tail.size());
  }
  const auto job_index = ordinal_suffix(middle);
  if (!job_index) {
    throw Fatal(exit_code::usage, "hostname \"" + util::printable(hostname) + "\" is not a pod of JobSet " + *name +
                                      " with JOB_COMPLETION_INDEX=" + std::to_string(*index) + " (expected " + shape +
                                      "; unset --hostname/HOSTNAME, or check JOBSET_NAME's Downward API field)");
  }
  const std::string rjob = middle.substr(0, middle.rfind('-'));
  const std::string why = "; raylaunch's JobSet shape is replicated jobs " + std::string(k_jobset_head_job) +
                          " (replicas 1, 1 pod) and " + k_jobset_workers_job +
                          " (replicas 1, nodes-1 pods): see docs/deploy.md";
  if (rjob != k_jobset_head_job && rjob != k_jobset_workers_job) {
    throw Fatal(exit_code::usage, "JobSet " + *name + ": replicated job \"" + util::printable(rjob) +
                                      "\" is neither " + k_jobset_head_job + " nor " + k_jobset_workers_job + why);
  }
  if (*job_index != 0) {
    throw Fatal(exit_code::usage, "JobSet " + *name + ": Job index " + std::to_string(*job_index) + " of " + rjob +
                                      " (hostname " + hostname + ") is not 0: one Job per replicated job" + why);
  }
  if (rjob == k_jobset_head_job && *index != 0) {
    throw Fatal(exit_code::usage, "JobSet " + *name + ": the head Job has a pod of index " + std::to_string(*index) +
                                      ": it must have exactly one (parallelism and completions 1)" + why);
  }
  WorkloadIdentity id;
  id.kind = Workload::jobset;
  id.ordinal = rjob == k_jobset_head_job ? 0 : *index + 1;
  id.ordinal_source = "JobSet " + rjob + " pod " + std::to_string(*index) + " (JOB_COMPLETION_INDEX)";
  id.head_pod = *name + "-" + k_jobset_head_job + "-0-0";
  id.worker_prefix = *name + "-" + k_jobset_workers_job + "-0-";
  id.worker_offset = -1;
  id.names_known = true;
  id.detail = "JobSet " + *name + ", replicated job " + rjob + ", pod " + std::to_string(*index);
  return id;
}

}  // namespace

std::optional<WorkloadIdentity> workload_identity(const EnvMap& env, const std::string& hostname) {
  if (auto id = from_lws(env, hostname)) {
    return id;
  }
  if (auto id = from_trainer(env, hostname)) {
    return id;
  }
  return from_jobset(env, hostname);
}

}  // namespace launcher
