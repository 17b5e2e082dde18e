#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/node_labels.hpp"
#include "plan/plan.hpp"
#include "util/exit_codes.hpp"

using namespace launcher;
using fixtures::config;
using fixtures::fatal_lines;

namespace {

PodIdentity worker() {
  PodIdentity id;
  id.role = Role::worker;
  id.ordinal = 1;
  id.ordinal_source = "hostname training-1";
  id.nodes = 2;
  id.hostname = "training-1";
  id.head_host = "training-0.training.ml.svc.cluster.local";
  return id;
}

PodFacts pod(const std::string& ray_version, const std::string& instance = "p4de.24xlarge", EnvMap env = {}) {
  PodFacts f;
  f.env = std::move(env);
  f.node.instance_type = instance;
  if (!ray_version.empty()) {
    f.ray_install = parse_ray_metadata("Version: " + ray_version + "\n", "/opt/venv/lib/ray.dist-info/METADATA");
  }
  return f;
}

const std::map<std::string, std::string> k_topology = {{"zone", "us-west-2a"}, {"region", "us-west-2"},
                                                       {"capacity_type", "spot"}};

std::vector<std::string> keys(const std::vector<NodeLabel>& labels) {
  std::vector<std::string> out;
  for (const NodeLabel& l : labels) {
    out.push_back(l.key);
  }
  return out;
}

}  // namespace

TEST_CASE("Ray 2.45+: every label in one --labels k=v,k=v, each with its source", "[labels][plan]") {
  const NodeLabelsPlan plan = plan_node_labels(config(k_topology), worker(), pod("2.60.0"));
  CHECK(plan.args == std::vector<std::string>{
                         "--labels=ray.io/availability-zone=us-west-2a,ray.io/availability-region=us-west-2,"
                         "ray.io/market-type=spot,raylaunch/capacity-type=spot,ray.io/accelerator-type=A100,"
                         "raylaunch/pod-name=training-1,raylaunch/pod-index=1"});
  REQUIRE(plan.labels.size() == 7);
  CHECK(plan.labels[0].source == "--zone");
  CHECK(plan.labels[2].source == "--capacity-type");
  CHECK(plan.labels[4].source == "instance table: p4de.24xlarge (Ray's own name for its GPUs)");
  CHECK(plan.labels[5].source == "hostname training-1");
  CHECK(plan.labels[6].source == "hostname training-1");  // the identity's ordinal source
  CHECK(plan.left_out.empty());
  CHECK(plan.note.empty());
  CHECK(plan.ray_version == "2.60.0");
}

TEST_CASE("reserved capacity is Ray's on-demand market, and raylaunch's own label keeps reserved", "[labels][plan]") {
  const NodeLabelsPlan plan =
      plan_node_labels(config({}, {{"RAYLAUNCH_CAPACITY_TYPE", "CAPACITY_BLOCK"}}), worker(), pod("2.49.2", ""));
  REQUIRE(plan.labels.size() == 4);
  CHECK(plan.labels[0].key == "ray.io/market-type");
  CHECK(plan.labels[0].value == "on-demand");
  CHECK(plan.labels[0].source == "RAYLAUNCH_CAPACITY_TYPE (reserved: bought on demand)");
  CHECK(plan.labels[1].value == "reserved");
  CHECK(keys(plan.labels) == std::vector<std::string>{"ray.io/market-type", "raylaunch/capacity-type",
                                                      "raylaunch/pod-name", "raylaunch/pod-index"});
}

TEST_CASE("Ray before 2.45: a JSON dict without the ray.io/ keys it refuses", "[labels][plan]") {
  const NodeLabelsPlan plan = plan_node_labels(config(k_topology), worker(), pod("2.40.0"));
  CHECK(plan.args == std::vector<std::string>{
                         R"(--labels={"raylaunch/capacity-type":"spot","raylaunch/pod-name":"training-1",)"
                         R"("raylaunch/pod-index":"1"})"});
  CHECK(keys(plan.left_out) == std::vector<std::string>{"ray.io/availability-zone", "ray.io/availability-region",
                                                        "ray.io/market-type", "ray.io/accelerator-type"});
  CHECK(plan.left_out[0].source == "Ray 2.40.0 refuses keys under ray.io/ in --labels (2.45+ takes them)");
  // A ray.io/ key the user asks for is refused before anything starts, not by ray start.
  int code = 0;
  const auto lines = fatal_lines(
      [&] { plan_node_labels(config({{"node_labels", "ray.io/market-type=spot"}}), worker(), pod("2.9.3")); }, &code);
  CHECK(code == exit_code::usage);
  CHECK(lines == std::vector<std::string>{
                     "--node-labels: ray.io/market-type: Ray 2.9.3 refuses keys under ray.io/ in ray start --labels "
                     "(Ray 2.45+ takes them): use a key of your own, or a newer Ray"});
}

TEST_CASE("no --labels where Ray is unknown or older than 2.6, with the reason", "[labels][plan]") {
  const NodeLabelsPlan unknown = plan_node_labels(config({}), worker(), pod(""));
  CHECK(unknown.args.empty());
  CHECK(unknown.labels.empty());
  CHECK(keys(unknown.left_out) == std::vector<std::string>{"ray.io/accelerator-type", "raylaunch/pod-name",
                                                           "raylaunch/pod-index"});
  CHECK(unknown.note.starts_with("the installed Ray's version is unknown"));
  const NodeLabelsPlan old = plan_node_labels(config({}), worker(), pod("2.5.1"));
  CHECK(old.args.empty());
  CHECK(old.note == "Ray 2.5.1 (/opt/venv/lib/ray.dist-info/METADATA) is older than 2.6, the first release raylaunch "
                    "knows to have ray start --labels: none passed");
}

TEST_CASE("the user's own --labels in --ray-args win: raylaunch steps aside and says so", "[labels][plan]") {
  for (const std::string& args : {std::string("--labels=team=a"), std::string("--labels {\"team\":\"a\"}"),
                                  std::string("--labels-file=/etc/ray/labels.yaml")}) {
    INFO(args);
    const Config c = config({{"ray_args", args}, {"zone", "us-west-2a"}});
    const NodeLabelsPlan plan = plan_node_labels(c, worker(), pod("2.60.0"));
    CHECK(plan.args.empty());
    CHECK(plan.labels.empty());
    CHECK(plan.left_out.size() == 4);
    CHECK(plan.note.starts_with("--ray-args has --labels"));
    const auto argv = ray_start_argv(c, worker(), 8, {}, plan.args);
    CHECK(std::count_if(argv.begin(), argv.end(), [](const std::string& a) { return a.starts_with("--labels"); }) == 1);
  }
}

TEST_CASE("the user's --node-labels add to raylaunch's and win for the same key; --default-labels off keeps only them",
          "[labels][plan]") {
  const Config c = config({{"node_labels", "raylaunch/pod-name=trainer,team=vision"}, {"zone", "us-west-2a"}});
  const NodeLabelsPlan plan = plan_node_labels(c, worker(), pod("2.60.0", "m5.large"));
  CHECK(plan.args == std::vector<std::string>{"--labels=ray.io/availability-zone=us-west-2a,raylaunch/pod-name=trainer,"
                                              "raylaunch/pod-index=1,team=vision"});
  CHECK(plan.labels[1].source == "--node-labels (replaces raylaunch's training-1)");
  CHECK(plan.labels[3].source == "--node-labels");

  const NodeLabelsPlan off =
      plan_node_labels(config({{"default_labels", "off"}, {"node_labels", "team=vision"}, {"zone", "z"}}), worker(),
                       pod("2.60.0"));
  CHECK(off.args == std::vector<std::string>{"--labels=team=vision"});
  const NodeLabelsPlan none = plan_node_labels(config({{"default_labels", "off"}}), worker(), pod("2.60.0"));
  CHECK(none.args.empty());
  CHECK(none.note == "none (--default-labels off and no --node-labels)");
}

TEST_CASE("a label Ray sets from its own variable is left to Ray", "[labels][plan]") {
  const NodeLabelsPlan plan = plan_node_labels(config(k_topology), worker(),
                                               pod("2.60.0", "", {{"RAY_NODE_ZONE", "us-west-2b"}, {"RAY_NODE_REGION", ""}}));
  CHECK(keys(plan.left_out) == std::vector<std::string>{"ray.io/availability-zone"});
  CHECK(plan.left_out[0].source == "RAY_NODE_ZONE is set: Ray sets ray.io/availability-zone itself (Ray 2.49+)");
  CHECK(plan.labels[0].key == "ray.io/availability-region");  // an empty variable counts as unset
  const NodeLabelsPlan overridden =
      plan_node_labels(config({}), worker(), pod("2.60.0", "", {{"RAY_OVERRIDE_LABELS", R"({"a":"b"})"}}));
  CHECK(overridden.note == "RAY_OVERRIDE_LABELS is set: Ray's autoscaler labels in it replace these where keys meet");
  CHECK_FALSE(overridden.args.empty());
}

TEST_CASE("the accelerator type of the instance table, as Ray names it", "[labels][plan]") {
  CHECK(accelerator_type("p4d.24xlarge") == std::optional<std::string>("A100"));
  CHECK(accelerator_type("p5.48xlarge") == std::optional<std::string>("H100"));
  CHECK(accelerator_type("p5e.48xlarge") == std::optional<std::string>("H200"));
  CHECK(accelerator_type("p5en.48xlarge") == std::optional<std::string>("H200"));
  CHECK(accelerator_type("p6-b200.48xlarge") == std::optional<std::string>("B200"));
  CHECK(accelerator_type("g5.12xlarge") == std::optional<std::string>("A10G"));
  CHECK(accelerator_type("g6.xlarge") == std::optional<std::string>("L4"));
  CHECK_FALSE(accelerator_type("p5.96xlarge"));  // not in the table: no guess from the family
  CHECK_FALSE(accelerator_type("m5.large"));
  CHECK_FALSE(accelerator_type(""));
}

TEST_CASE("the plan shows the labels with their sources, and ray start gets them", "[labels][plan]") {
  const fixtures::NodeTree tree("workstation", "training-1");
  const Config c = config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "training"}, {"hostname", "training-1"},
                           {"zone", "us-west-2a"}, {"checks", "off"}, {"host_root", tree.path()}});
  PodFacts facts = gather_pod_facts(c, {}, fixtures::eks_limits());
  facts.ray_install = parse_ray_metadata("Version: 2.60.0\n", "METADATA");
  const Plan plan = make_plan(c, facts, {});
  const auto flag = std::find(plan.ray_start.begin(), plan.ray_start.end(),
                              "--labels=ray.io/availability-zone=us-west-2a,raylaunch/pod-name=training-1,"
                              "raylaunch/pod-index=1");
  REQUIRE(flag != plan.ray_start.end());
  CHECK(plan.ray_start.back() == "--block");
  const std::string text = render_plan_text(plan);
  CHECK(text.find("\nray node labels (ray start --labels, Ray 2.60.0):\n"
                  "  ray.io/availability-zone=us-west-2a  (--zone)\n"
                  "  raylaunch/pod-name=training-1  (hostname training-1)\n") != std::string::npos);
  const std::string json = render_plan_json(plan);
  CHECK(json.find(R"("key": "raylaunch/pod-index")") != std::string::npos);
}
