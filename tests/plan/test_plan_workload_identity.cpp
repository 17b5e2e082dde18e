#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/pod_identity.hpp"
#include "plan/workload_identity.hpp"

using namespace launcher;
using fixtures::config;
using fixtures::fatal_lines;

namespace {

PodFacts facts(const std::string& hostname, EnvMap env, std::string hosts = "") {
  PodFacts f;
  f.hostname = hostname;
  f.hostname_source = "HOSTNAME";
  f.env = std::move(env);
  f.etc_hosts = std::move(hosts);
  return f;
}

EnvMap lws(const std::string& index, const std::string& size = "4",
           const std::string& leader = "vllm-1.vllm.ml") {
  return {{"LWS_LEADER_ADDRESS", leader}, {"LWS_WORKER_INDEX", index}, {"LWS_GROUP_SIZE", size}};
}

// The one line a refused identity gives, and its exit code (64).
std::vector<std::string> refused(const EnvMap& env, const std::string& hostname,
                                 const std::map<std::string, std::string>& flags = {{"namespace", "ml"}}) {
  int code = 0;
  auto lines = fatal_lines([&] { resolve_identity(config(flags), facts(hostname, env)); }, &code);
  CHECK(code == 64);
  return lines;
}

const std::string k_binary = std::string("3\x00\xff", 3);

}  // namespace

TEST_CASE("no workload variables: no workload identity, today's rules", "[identity][workload]") {
  CHECK_FALSE(workload_identity({{"JOB_COMPLETION_INDEX", "1"}}, "job-1"));
  const PodIdentity id = resolve_identity(config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "s"}}),
                                          facts("t-1", {}));
  CHECK_FALSE(id.workload);
  CHECK(id.nodes_source == "--nodes");
}

TEST_CASE("an LWS worker: ordinal, node count and head from LWS's variables, its group's real pod names",
          "[identity][workload]") {
  const PodIdentity id = resolve_identity(config({{"namespace", "ml"}}), facts("vllm-1-2", lws("2")));
  CHECK(id.workload == Workload::lws);
  CHECK(id.role == Role::worker);
  CHECK(id.ordinal == 2);
  CHECK(id.ordinal_source == "LWS_WORKER_INDEX");
  CHECK(id.nodes == 4);
  CHECK(id.nodes_source == "LWS_GROUP_SIZE");
  CHECK(id.head_address() == "vllm-1.vllm.ml:6379");
  CHECK(id.head_host_source == "LWS_LEADER_ADDRESS");
  CHECK(id.expected_node_names() == std::vector<std::string>{"vllm-1", "vllm-1-1", "vllm-1-2", "vllm-1-3"});
}

TEST_CASE("the LWS leader is the head; a group of one is its own head", "[identity][workload]") {
  const PodIdentity leader = resolve_identity(config({{"namespace", "ml"}}), facts("vllm-1", lws("0")));
  CHECK(leader.role == Role::head);
  CHECK(leader.expected_node_names().front() == "vllm-1");
  const PodIdentity alone = resolve_identity(config({}), facts("vllm-1", lws("0", "1")));
  CHECK(alone.head_host == "127.0.0.1");
  CHECK(alone.nodes == 1);
}

TEST_CASE("an explicit setting that agrees with LWS is fine; one that contradicts it is 64", "[identity][workload]") {
  const PodIdentity id =
      resolve_identity(config({{"nodes", "4"}, {"ordinal", "2"}}), facts("vllm-1-2", lws("2")));
  CHECK(id.ordinal_source == "--ordinal");
  CHECK(id.nodes_source == "LWS_GROUP_SIZE");
  const auto nodes = refused(lws("2"), "vllm-1-2", {{"nodes", "3"}});
  REQUIRE(nodes.size() == 1);
  CHECK(nodes[0] == "--nodes: 3 contradicts LWS_GROUP_SIZE=4 (LeaderWorkerSet's own count: unset --nodes or "
                    "make them equal)");
  const auto ordinal = refused(lws("2"), "vllm-1-2", {{"nodes", "4"}, {"ordinal", "3"}});
  REQUIRE(ordinal.size() == 1);
  CHECK(ordinal[0] == "--ordinal: 3 contradicts LWS_WORKER_INDEX, which makes this pod ordinal 2 (unset --ordinal)");
  // An explicit head address still wins: a Service in front of the leader is the user's choice.
  const PodIdentity over = resolve_identity(config({{"head_address", "head.example:7000"}}), facts("vllm-1-2", lws("2")));
  CHECK(over.head_address() == "head.example:7000");
}

TEST_CASE("hostile LWS values are one line each, exit 64, never a guess", "[identity][workload][bad-input]") {
  struct Case {
    EnvMap env;
    std::string hostname;
    std::string line;
  };
  const std::vector<Case> cases = {
      {lws("2", ""), "vllm-1-2",
       "LWS_GROUP_SIZE: \"\" is not valid (expected a whole number from 1 to 100000; LeaderWorkerSet sets it: do not "
       "override it in the pod template)"},
      {lws("2", "four"), "vllm-1-2",
       "LWS_GROUP_SIZE: \"four\" is not valid (expected a whole number from 1 to 100000; LeaderWorkerSet sets it: do "
       "not override it in the pod template)"},
      {lws("2", "-4"), "vllm-1-2",
       "LWS_GROUP_SIZE: \"-4\" is not valid (expected a whole number from 1 to 100000; LeaderWorkerSet sets it: do "
       "not override it in the pod template)"},
      {lws("2", "18446744073709551617"), "vllm-1-2",
       "LWS_GROUP_SIZE: \"18446744073709551617\" is not valid (expected a whole number from 1 to 100000; "
       "LeaderWorkerSet sets it: do not override it in the pod template)"},
      {lws("4"), "vllm-1-4",
       "LWS_WORKER_INDEX: \"4\" is not valid (expected a whole number from 0 to 3 (below LWS_GROUP_SIZE=4); "
       "LeaderWorkerSet sets it: do not override it in the pod template)"},
      {lws(k_binary), "vllm-1-3",
       "LWS_WORKER_INDEX: \"3\\x00\\xff\" is not valid (expected a whole number from 0 to 3 (below LWS_GROUP_SIZE=4); "
       "LeaderWorkerSet sets it: do not override it in the pod template)"},
      {lws("2", "4", ""), "vllm-1-2",
       "LWS_LEADER_ADDRESS: \"\" is not valid (expected a DNS name such as training-0.training.ml; LeaderWorkerSet "
       "sets it: do not override it in the pod template)"},
      {lws("2", "4", "10.0.0.1:6379"), "vllm-1-2",
       "LWS_LEADER_ADDRESS: \"10.0.0.1:6379\" is not valid (expected a DNS name such as training-0.training.ml; "
       "LeaderWorkerSet sets it: do not override it in the pod template)"},
      {lws("2", "4", "leader.vllm.ml"), "vllm-1-2",
       "LWS_LEADER_ADDRESS: \"leader.vllm.ml\" is not valid (expected <lws>-<group>.<subdomain>.<namespace>, as "
       "LeaderWorkerSet writes it)"},
      {{{"LWS_WORKER_INDEX", "1"}, {"LWS_GROUP_SIZE", "2"}}, "vllm-1-1",
       "LWS_LEADER_ADDRESS: not set, while other LeaderWorkerSet variables are (LeaderWorkerSet sets them together: "
       "is the pod template overriding its env?)"},
      {lws("2"), "training-2",
       "hostname \"training-2\" is not the LeaderWorkerSet pod vllm-1-2 that LWS_LEADER_ADDRESS and "
       "LWS_WORKER_INDEX=2 name (unset --hostname/HOSTNAME: LWS names its pods, and the head's barrier waits for "
       "those names)"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    const auto lines = refused(c.env, c.hostname);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == c.line);
  }
  // All wrong at once: each on its own line.
  CHECK(refused(lws("x", "y", "Not A Name"), "vllm-1-2").size() == 3);
}

TEST_CASE("a JobSet head and workers: ordinals from the replicated job and index, names from JobSet's hostnames",
          "[identity][workload]") {
  const std::string hosts = "10.0.0.9\trl-workers-0-1.rl.ml.svc.cluster.local\trl-workers-0-1\n";
  const EnvMap env = {{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "1"}};
  const PodIdentity w = resolve_identity(config({{"nodes", "3"}, {"namespace", "ml"}}), facts("rl-workers-0-1", env, hosts));
  CHECK(w.workload == Workload::jobset);
  CHECK(w.ordinal == 2);
  CHECK(w.ordinal_source == "JobSet workers pod 1 (JOB_COMPLETION_INDEX)");
  CHECK(w.nodes_source == "--nodes");
  CHECK(w.service == "rl");
  CHECK(w.head_address() == "rl-head-0-0.rl.ml.svc.cluster.local:6379");
  CHECK(w.head_host_source == "derived from JobSet pod rl-head-0-0");
  CHECK(w.expected_node_names() == std::vector<std::string>{"rl-head-0-0", "rl-workers-0-0", "rl-workers-0-1"});
  const PodIdentity h = resolve_identity(config({{"nodes", "3"}, {"namespace", "ml"}, {"service", "rl"}}),
                                         facts("rl-head-0-0", {{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "0"}}));
  CHECK(h.role == Role::head);
  CHECK(h.ordinal == 0);
}

TEST_CASE("hostile JobSet values are one line each, exit 64", "[identity][workload][bad-input]") {
  const std::map<std::string, std::string> flags = {{"nodes", "3"}, {"namespace", "ml"}, {"service", "rl"}};
  const std::string shape = "; raylaunch's JobSet shape is replicated jobs head (replicas 1, 1 pod) and workers "
                            "(replicas 1, nodes-1 pods): see docs/deploy.md";
  struct Case {
    EnvMap env;
    std::string hostname;
    std::string line;
  };
  const std::vector<Case> cases = {
      {{{"JOBSET_NAME", ""}, {"JOB_COMPLETION_INDEX", "0"}}, "rl-head-0-0",
       "JOBSET_NAME: \"\" is not valid (expected a JobSet name (a DNS label), from the Downward API: "
       "metadata.annotations['jobset.sigs.k8s.io/jobset-name'])"},
      {{{"JOBSET_NAME", "rl"}}, "rl-head-0-0",
       "JOB_COMPLETION_INDEX: not set in a pod of JobSet rl (make both replicated jobs completionMode: Indexed)"},
      {{{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "-1"}}, "rl-head-0-0",
       "JOB_COMPLETION_INDEX: \"-1\" is not valid (expected a whole number from 0 to 99999; the JobSet's Job sets it: do not "
       "override it in the pod template)"},
      {{{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "1"}}, "other-workers-0-1",
       "hostname \"other-workers-0-1\" is not a pod of JobSet rl with JOB_COMPLETION_INDEX=1 (expected "
       "<jobset>-<replicatedJob>-<jobIndex>-<podIndex>; unset --hostname/HOSTNAME, or check JOBSET_NAME's Downward "
       "API field)"},
      {{{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "1"}}, "rl-node-0-1",
       "JobSet rl: replicated job \"node\" is neither head nor workers" + shape},
      {{{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "1"}}, "rl-workers-1-1",
       "JobSet rl: Job index 1 of workers (hostname rl-workers-1-1) is not 0: one Job per replicated job" + shape},
      {{{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "1"}}, "rl-head-0-1",
       "JobSet rl: the head Job has a pod of index 1: it must have exactly one (parallelism and completions 1)" + shape},
      {{{"JOBSET_NAME", "rl"}, {"JOB_COMPLETION_INDEX", "2"}}, "rl-workers-0-2",
       "JobSet workers pod 2 (JOB_COMPLETION_INDEX): ordinal 3 is not below nodes=3 (--nodes; set RAYLAUNCH_NODES "
       "to the pods of the JobSet)"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    const auto lines = refused(c.env, c.hostname, flags);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == c.line);
  }
}

TEST_CASE("a Kubeflow Trainer node: rank, master and node count from PET_*, Ray's own port kept",
          "[identity][workload]") {
  const EnvMap env = {{"PET_NODE_RANK", "1"}, {"PET_MASTER_ADDR", "tj-node-0-0.tj"}, {"PET_NNODES", "3"},
                      {"PET_MASTER_PORT", "29400"}, {"JOBSET_NAME", "tj"}, {"JOB_COMPLETION_INDEX", "1"}};
  const PodIdentity id = resolve_identity(config({}), facts("tj-node-0-1", env));
  CHECK(id.workload == Workload::trainer);  // before JobSet, which it runs on
  CHECK(id.ordinal == 1);
  CHECK(id.ordinal_source == "PET_NODE_RANK");
  CHECK(id.nodes == 3);
  CHECK(id.head_address() == "tj-node-0-0.tj:6379");
  CHECK(id.expected_node_names() == std::vector<std::string>{"tj-node-0-0", "tj-node-0-1", "tj-node-0-2"});
  // A hostname that does not carry the rank: the names are not guessed (the barrier counts).
  const PodIdentity other = resolve_identity(config({}), facts("launcher", env));
  CHECK(other.expected_node_names().empty());
}

TEST_CASE("hostile Trainer values are one line each, exit 64", "[identity][workload][bad-input]") {
  const auto pet = [](std::string rank, std::string master, std::string nnodes) {
    return EnvMap{{"PET_NODE_RANK", std::move(rank)}, {"PET_MASTER_ADDR", std::move(master)},
                  {"PET_NNODES", std::move(nnodes)}};
  };
  const std::string tail = "; Kubeflow Trainer sets it: do not override it in the pod template)";
  CHECK(refused(pet("1", "m.tj", "1:4"), "tj-node-0-1") ==
        std::vector<std::string>{"PET_NNODES: \"1:4\" is not valid (expected a fixed node count; an elastic MIN:MAX "
                                 "range cannot size the join barrier (set numNodes in the TrainJob))"});
  CHECK(refused(pet("3", "m.tj", "3"), "tj-node-0-3") ==
        std::vector<std::string>{"PET_NODE_RANK: \"3\" is not valid (expected a whole number from 0 to 2 (below "
                                 "PET_NNODES=3)" + tail});
  CHECK(refused(pet("1", "", "3"), "tj-node-0-1") ==
        std::vector<std::string>{"PET_MASTER_ADDR: \"\" is not valid (expected a DNS name such as "
                                 "training-0.training.ml" + tail});
  CHECK(refused(pet("1", "m.tj", "0"), "tj-node-0-1") ==
        std::vector<std::string>{"PET_NNODES: \"0\" is not valid (expected a whole number from 1 to 100000" + tail});
  CHECK(refused(pet("1", "m.tj", "99999999999"), "tj-node-0-1").size() == 1);
}

TEST_CASE("an explicit ordinal is checked against the node count the workload or the default settles",
          "[identity][workload][bad-input]") {
  CHECK(refused({}, "laptop", {{"ordinal", "3"}, {"head_address", "head.example"}}) ==
        std::vector<std::string>{"--ordinal: ordinal 3 is not below nodes=1 (expected 0..0; set RAYLAUNCH_NODES to "
                                 "the replica count)"});
  // Under LWS, --ordinal 2 without --nodes is checked against LWS_GROUP_SIZE=4: fine.
  CHECK(resolve_identity(config({{"ordinal", "2"}}), facts("vllm-1-2", lws("2"))).nodes == 4);
}
