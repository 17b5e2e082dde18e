#include <catch2/catch.hpp>
#include <fstream>

#include "fixtures.hpp"
#include "plan/plan.hpp"

using namespace launcher;
using fixtures::NodeTree;

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;

// Facts from a fake p4de tree, with /dev/shm pinned to a 64Gi tmpfs so output is stable.
// Limits are a well-configured EKS pod's unless given (never this machine's); the installed Ray
// (which the node labels' --labels syntax follows) is 2.60.0, whatever this machine has.
PodFacts p4de_pod(const NodeTree& tree, const std::string& hostname, EnvMap env = {},
                  const util::ProcessLimits& limits = fixtures::eks_limits()) {
  PodFacts f = gather_pod_facts(fixtures::config({{"host_root", tree.path()}, {"hostname", hostname}}, env), env, limits);
  f.node.shm = ShmFacts{64 * k_gib, 64 * k_gib, true};
  f.ray_install = parse_ray_metadata("Version: 2.60.0\n", "/opt/venv/lib/python3.11/site-packages/ray-2.60.0.dist-info/METADATA");
  return f;
}

// Compares with tests/plan/golden/NAME; RAYLAUNCH_UPDATE_GOLDEN=1 rewrites it instead.
void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(RAYLAUNCH_TESTS_DIR) + "/plan/golden/" + name;
  if (std::getenv("RAYLAUNCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
  }
  CHECK(actual == fixtures::slurp(path));
}

const std::map<std::string, std::string> k_flags = {{"nodes", "4"}, {"namespace", "ml"}};
const std::vector<std::string> k_command = {"python3", "-m", "training.main", "--config", "ppo.yaml"};

}  // namespace

TEST_CASE("golden JSON plan of a p4de head", "[plan][golden]") {
  const NodeTree tree("p4de-ofi", "training-0");
  const Plan plan = make_plan(fixtures::config(k_flags), p4de_pod(tree, "training-0", {{"NCCL_DEBUG", "INFO"}}), k_command);
  check_golden("plan-p4de-head.json", render_plan_json(plan));
}

TEST_CASE("golden JSON plan of a p4de worker", "[plan][golden]") {
  const NodeTree tree("p4de-ofi", "training-2");
  const Plan plan = make_plan(fixtures::config(k_flags), p4de_pod(tree, "training-2"), k_command);
  check_golden("plan-p4de-worker.json", render_plan_json(plan));
}

TEST_CASE("golden JSON plan of a p5 worker on a faulty node", "[plan][golden]") {
  const NodeTree tree("p5-ofi", "training-3");
  tree.inject("gpu-fell-off 0000:13:00.0");
  tree.inject("link 0000:15:00.0 8 32.0");
  tree.inject("port rdmap5s0 '1: DOWN' '2: Polling'");
  tree.inject("efa-pod 16");
  REQUIRE(std::system(("rm '" + tree.path() + "/opt/amazon/ofi-nccl/lib/libnccl-net.so'").c_str()) == 0);
  const Plan plan = make_plan(fixtures::config(k_flags), p4de_pod(tree, "training-3"), k_command);
  CHECK(plan.exit_code() == 78);
  check_golden("plan-p5-worker-faults.json", render_plan_json(plan));
}

TEST_CASE("a failed check stops a strict plan with 78, not a warn one", "[plan]") {
  const NodeTree tree("p4de-2efa", "training-1");
  const PodFacts facts = p4de_pod(tree, "training-1");
  CHECK(make_plan(fixtures::config(k_flags), facts, {}).exit_code() == 78);
  auto warn = k_flags;
  warn["checks"] = "warn";
  CHECK(make_plan(fixtures::config(warn), facts, {}).exit_code() == 0);
  auto off = k_flags;
  off["checks"] = "off";
  const Plan unchecked = make_plan(fixtures::config(off), facts, {});
  CHECK(unchecked.exit_code() == 0);
  CHECK(unchecked.checks.empty());
}

TEST_CASE("p5 plan raises the open-file limit and memlock before ray start", "[plan]") {
  const NodeTree tree("p5-ofi", "training-1");
  // A p5 pod whose runtime left nofile at 1024 and memlock at 64Ki (raisable to unlimited).
  const util::ProcessLimits limits{util::Limit{65536, std::nullopt}, util::Limit{1024, 1048576}};
  const Plan plan = make_plan(fixtures::config(k_flags), p4de_pod(tree, "training-1", {}, limits), {});
  std::vector<std::string> actions;
  for (const Action& a : plan.actions) {
    actions.push_back(describe(a));
  }
  CHECK(actions == std::vector<std::string>{"raise RLIMIT_NOFILE soft limit to 65536",
                                            "raise RLIMIT_MEMLOCK soft limit to unlimited"});
  CHECK(std::get<RaiseLimit>(plan.actions[0]).soft == std::optional<std::uint64_t>(65536));
  CHECK(plan.object_store.bytes == 60129542144ULL);
  CHECK(plan.object_store.reason == "/dev/shm 64Gi minus 8Gi headroom for NCCL and DataLoader");
  CHECK(plan.expected_efa == 32);
  CHECK(plan.exit_code() == 0);
}

TEST_CASE("the child environment keeps user values and adds the plan's", "[plan]") {
  const NodeTree tree("p4de", "training-2");
  const EnvMap user = {{"NCCL_DEBUG", "INFO"}, {"PATH", "/usr/bin"}};
  const Plan plan = make_plan(fixtures::config(k_flags), p4de_pod(tree, "training-2", user), {});
  const EnvMap env = plan.child_env(user);
  CHECK(env.at("NCCL_DEBUG") == "INFO");
  CHECK(env.at("PATH") == "/usr/bin");
  CHECK(env.at("FI_EFA_USE_HUGE_PAGE") == "0");
  CHECK(env.at("RAYLAUNCH_ROLE") == "worker");
}

TEST_CASE("the text plan shows role, checks with fixes, env reasons, argv and exit code", "[plan]") {
  const NodeTree tree("p4de-2efa", "training-1");
  const std::string text =
      render_plan_text(make_plan(fixtures::config(k_flags), p4de_pod(tree, "training-1"), k_command));
  CHECK(text.starts_with("raylaunch plan: training-1 is the worker (ordinal 1 of 4 nodes)\n"));
  CHECK_THAT(text, Catch::Contains("  FAIL  efa                    2 EFA devices found, 4 expected (p4de.24xlarge); "
                                   "limited by the node: it has only 2 (/sys/class/infiniband)\n"
                                   "        fix: request vpc.amazonaws.com/efa: 4"));
  CHECK_THAT(text, Catch::Contains("  FI_EFA_USE_HUGE_PAGE=0\n      # the pod's 2MB huge-page limit is 0"));
  CHECK_THAT(text, Catch::Contains("ray start:\n  ray start --address=training-0.training-svc.ml.svc.cluster.local:6379"));
  CHECK_THAT(text, Catch::Contains("command:\n  python3 -m training.main --config ppo.yaml\n"));
  CHECK_THAT(text, Catch::EndsWith("exit code: 78 (a node check failed under checks=strict: run would stop here)\n"));
}

TEST_CASE("argv is displayed quoted but stays an argv", "[plan]") {
  CHECK(display_argv({"python3", "-c", "print('hi there')"}) == "python3 -c 'print('\\''hi there'\\'')'");
}
