#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace launcher;
using fixtures::config;
using fixtures::fatal_lines;

namespace {

// Parses one bad setting; returns its single error line and checks the exit code is 64.
std::string one_error(const std::map<std::string, std::string>& flags, const EnvMap& env = {}) {
  int code = 0;
  const auto lines = fatal_lines([&] { config(flags, env); }, &code);
  CHECK(code == exit_code::usage);
  REQUIRE(lines.size() == 1);
  return lines[0];
}

}  // namespace

TEST_CASE("defaults match --help", "[config]") {
  const Config c = config({});
  CHECK(c.nodes == 1);
  CHECK(c.ray_port == 6379);
  CHECK(c.node_manager_port == 6380);
  CHECK(c.join_timeout == std::chrono::minutes(5));
  CHECK(c.checks == ChecksPolicy::strict);
  CHECK(c.ray == "ray");
  CHECK(c.host_root == "/");
  CHECK(c.probe_timeout == std::chrono::seconds(1));
}

TEST_CASE("bad nodes are refused naming the setting, value and expectation", "[config][bad-input]") {
  CHECK(one_error({{"nodes", "four"}}) ==
        "--nodes: \"four\" is not valid (expected a whole number from 1 to 100000)");
  CHECK(one_error({}, {{"RAYLAUNCH_NODES", "-2"}}) ==
        "RAYLAUNCH_NODES: \"-2\" is not valid (expected a whole number from 1 to 100000)");
  CHECK(one_error({{"nodes", "0"}}) == "--nodes: \"0\" is not valid (expected a whole number from 1 to 100000)");
}

TEST_CASE("bad ordinals are refused", "[config][bad-input]") {
  CHECK(one_error({{"ordinal", "x1"}}) ==
        "--ordinal: \"x1\" is not valid (expected a whole number from 0 to 99999)");
  CHECK(one_error({}, {{"RAYLAUNCH_ORDINAL", "-1"}}) ==
        "RAYLAUNCH_ORDINAL: \"-1\" is not valid (expected a whole number from 0 to 99999)");
  CHECK(one_error({{"nodes", "4"}, {"ordinal", "4"}}) ==
        "--ordinal: ordinal 4 is not below nodes=4 (expected 0..3; set RAYLAUNCH_NODES to the replica count)");
}

TEST_CASE("unknown check policies, durations and sizes are refused", "[config][bad-input]") {
  CHECK(one_error({{"checks", "lenient"}}) == "--checks: \"lenient\" is not valid (expected one of strict|warn|off)");
  CHECK(one_error({}, {{"RAYLAUNCH_JOIN_TIMEOUT", "5 minutes"}}) ==
        "RAYLAUNCH_JOIN_TIMEOUT: \"5 minutes\" is not valid (expected a positive duration such as 300, 300s, 5m, "
        "1h, 1m30s or 1500ms, at most 168h)");
  CHECK(one_error({{"shm_min", "64GB"}}) ==
        "--shm-min: \"64GB\" is not valid (expected a size in bytes or with a suffix such as 64Gi, 512Mi, 60G, from 0 "
        "to 1024Ti)");
  CHECK(one_error({{"object_store_memory", "lots"}}).starts_with("--object-store-memory: \"lots\""));
  CHECK(one_error({{"ray_port", "70000"}}) ==
        "--ray-port: \"70000\" is not valid (expected a whole number from 1 to 65535)");
  CHECK(one_error({{"output", "yaml"}}) == "--output: \"yaml\" is not valid (expected one of text|json)");
  CHECK(one_error({{"host_root", "relative/dir"}}) ==
        "--host-root: \"relative/dir\" is not valid (expected an absolute directory path)");
  // Programs: a name on PATH or an absolute path, never one relative to where the pod starts.
  CHECK(one_error({{"fabric_pingpong", "bin/fi_pingpong"}}) ==
        "--fabric-pingpong: \"bin/fi_pingpong\" is not valid (expected a program name, or an absolute path such as "
        "/opt/amazon/efa/bin/fi_pingpong)");
  CHECK(one_error({{"ray", "venv/bin/ray"}}) ==
        "--ray: \"venv/bin/ray\" is not valid (expected a program name, or an absolute path such as "
        "/opt/venv/ray/bin/ray)");
  CHECK(one_error({{"ray", "ray start"}}) == "--ray: \"ray start\" is not valid (expected a program name or path)");
  CHECK(one_error({{"fabric_pingpong", "bin/fi_pingpong"}}) ==
        "--fabric-pingpong: \"bin/fi_pingpong\" is not valid (expected a program name, or an absolute path such as "
        "/opt/amazon/efa/bin/fi_pingpong)");
  CHECK(one_error({{"address", "training-0"}}) ==
        "--address: \"training-0\" is not valid (expected HOST:PORT such as "
        "training-0.training.ml.svc.cluster.local:6379 (an IPv6 address in brackets: [fd00::1]:6379))");
}

TEST_CASE("every problem is reported at once, not one per run", "[config][bad-input]") {
  int code = 0;
  const auto lines = fatal_lines([&] { config({{"nodes", "x"}, {"checks", "y"}, {"gpus", "z"}}); }, &code);
  CHECK(code == 64);
  CHECK(lines.size() == 3);
}

TEST_CASE("ray args split into words and a duration shows its source", "[config]") {
  const Config c = config({{"ray_args", "--num-cpus=90  --include-dashboard=false"}});
  CHECK(c.ray_args == std::vector<std::string>{"--num-cpus=90", "--include-dashboard=false"});
  CHECK(config({}, {{"RAYLAUNCH_JOIN_TIMEOUT", "10m"}}).join_timeout == std::chrono::minutes(10));
  CHECK(config({}, {{"RAYLAUNCH_JOIN_TIMEOUT", "10m"}}).source_of(&Config::join_timeout) == "RAYLAUNCH_JOIN_TIMEOUT");
}

TEST_CASE("long values are not cut at 256 bytes and refused", "[config]") {
  // Ten ports' worth of ray start options, as a node sharing a network namespace needs them.
  std::string args;
  for (int i = 0; i < 12; ++i) {
    args += "--option-number-" + std::to_string(i) + "=value" + std::to_string(i) + " ";
  }
  REQUIRE(args.size() > 256);
  CHECK(config({{"ray_args", args}}).ray_args.size() == 12);
  const std::string deep = "/opt/" + std::string(300, 'v') + "/venv";
  CHECK(*config({{"venv", deep}}).venv == deep);
}

TEST_CASE("addresses: no scheme, no spaces, IPv6 only in brackets", "[config][bad-input]") {
  const std::string expected =
      "(expected HOST:PORT such as training-0.training.ml.svc.cluster.local:6379 (an IPv6 address in brackets: "
      "[fd00::1]:6379)";
  CHECK(one_error({{"address", "http://h:6379"}}) == "--address: \"http://h:6379\" is not valid " + expected +
                                                         ", without a scheme)");
  CHECK(one_error({{"address", "h :6379"}}) == "--address: \"h :6379\" is not valid " + expected + ")");
  CHECK(one_error({{"address", "fd00::1:6379"}}) == "--address: \"fd00::1:6379\" is not valid " + expected + ")");
  CHECK(config({{"address", "[fd00::1]:6379"}}).address->host == "fd00::1");
  CHECK(one_error({{"head_address", "h:6379:6379"}}).starts_with("--head-address: \"h:6379:6379\" is not valid"));
  CHECK(config({{"head_address", "h:7000"}}).head_port == std::optional<int>(7000));
}

TEST_CASE("names must be names Kubernetes issues", "[config][bad-input]") {
  CHECK(one_error({{"namespace", "ML"}}) == "--namespace: \"ML\" is not valid (expected a Kubernetes namespace (a DNS label))");
  CHECK(one_error({{"service", std::string(64, 's')}}).starts_with("--service: \"ssss"));
  CHECK(one_error({{"cluster_domain", "cluster..local"}}) ==
        "--cluster-domain: \"cluster..local\" is not valid (expected a DNS domain such as cluster.local)");
  CHECK(one_error({}, {{"HOSTNAME", "bad_host"}}).starts_with("HOSTNAME: \"bad_host\" is not valid"));
}

TEST_CASE("control bytes in a bad value are escaped: one error stays one line", "[config][bad-input]") {
  CHECK(one_error({{"nodes", "4\n\x1b[31m"}}) ==
        "--nodes: \"4\\n\\e[31m\" is not valid (expected a whole number from 1 to 100000)");
}

TEST_CASE("durations are capped, never wrapped", "[config][bad-input]") {
  CHECK(one_error({{"join_timeout", "4294967295m"}}).starts_with("--join-timeout: \"4294967295m\" is not valid"));
  CHECK(one_error({{"join_timeout", "169h"}}).starts_with("--join-timeout: \"169h\" is not valid"));
  CHECK(config({{"join_timeout", "168h"}}).join_timeout == std::chrono::hours(168));
  CHECK(config({{"join_timeout", "1m30s"}}).join_timeout == std::chrono::seconds(90));
}

TEST_CASE("the object store size is range-checked", "[config][bad-input]") {
  CHECK(one_error({{"object_store_memory", "0"}}) ==
        "--object-store-memory: \"0\" is not valid (expected a size from 75Mi to 1024Ti)");
  CHECK(one_error({{"object_store_memory", "1"}}).starts_with("--object-store-memory: \"1\" is not valid"));
  CHECK(one_error({{"object_store_memory", "18446744073709551615"}})
            .starts_with("--object-store-memory: \"18446744073709551615\" is not valid"));
  CHECK(config({{"object_store_memory", "56Gi"}}).object_store_memory == std::optional<std::uint64_t>(56ULL << 30));
}

TEST_CASE("ray start options raylaunch owns are refused, naming the setting to use", "[config][bad-input]") {
  CHECK(one_error({{"ray_args", "--num-cpus=8 --head"}}) ==
        "--ray-args: \"--num-cpus=8 --head\" is not valid (expected ray start options other than --head, which "
        "raylaunch sets itself (use the pod's ordinal (0 is the head)))");
  CHECK(one_error({}, {{"RAYLAUNCH_RAY_ARGS", "--node-name=x"}}).starts_with("RAYLAUNCH_RAY_ARGS: \"--node-name=x\""));
}

TEST_CASE("ports sharing the pod's network must differ", "[config][bad-input]") {
  CHECK(one_error({{"ray_port", "6380"}}) ==
        "--ray-port and --node-manager-port are both 6380 (expected different ports: they share the pod's network)");
}

TEST_CASE("a command validates only the settings it reads", "[config]") {
  const RawSettings raw({}, {{"RAYLAUNCH_SHM_MIN", "bogus"}, {"RAYLAUNCH_OBJECT_STORE_MEMORY", "lots"},
                             {"RAYLAUNCH_PROBE_TIMEOUT", "2s"}});
  const Config c = parse_config(raw, Command::probe);
  CHECK(c.probe_timeout == std::chrono::seconds(2));
  CHECK_FALSE(c.shm_min.has_value());
  CHECK(c.nodes == 1);  // the default, from the settings table
}

TEST_CASE("a setting nobody gave names no environment variable as its source", "[config]") {
  CHECK(config({}).source_of(&Config::join_timeout) == "default");
}

// Ray node labels (issue 28): config/label_settings.

TEST_CASE("label keys and values follow Kubernetes' syntax, as Ray checks it", "[labels][config]") {
  CHECK(is_label_key("region"));
  CHECK(is_label_key("ray.io/availability-zone"));
  CHECK(is_label_key("raylaunch/pod-index"));
  CHECK(is_label_key("example.com/GPU_Type.v2"));
  CHECK(is_label_key(std::string(63, 'k')));
  CHECK_FALSE(is_label_key(std::string(64, 'k')));
  CHECK_FALSE(is_label_key(""));
  CHECK_FALSE(is_label_key("/name"));
  CHECK_FALSE(is_label_key("prefix/"));
  CHECK_FALSE(is_label_key("Upper.Case/name"));  // a prefix is a DNS subdomain: lowercase
  CHECK_FALSE(is_label_key("bad..prefix/name"));
  CHECK_FALSE(is_label_key("-name"));
  CHECK_FALSE(is_label_key("name-"));
  CHECK_FALSE(is_label_key("na me"));
  CHECK_FALSE(is_label_key(std::string(254, 'a') + "/name"));
  CHECK(is_label_value(""));
  CHECK(is_label_value("us-west-2a"));
  CHECK(is_label_value("A100"));
  CHECK_FALSE(is_label_value(std::string(64, 'v')));
  CHECK_FALSE(is_label_value("a,b"));
  CHECK_FALSE(is_label_value("a=b"));
  CHECK_FALSE(is_label_value(std::string("a\0b", 3)));
}

TEST_CASE("zone, region, capacity type and extra labels are read from flags and variables", "[labels][config]") {
  const Config c = config({{"zone", "us-west-2a"}, {"node_labels", "team=vision, tier = gold,empty="}},
                          {{"RAYLAUNCH_REGION", "us-west-2"}, {"RAYLAUNCH_CAPACITY_TYPE", "CAPACITY_BLOCK"}});
  CHECK(c.zone == std::optional<std::string>("us-west-2a"));
  CHECK(c.region == std::optional<std::string>("us-west-2"));
  CHECK(c.capacity_type == std::optional<CapacityType>(CapacityType::reserved));
  REQUIRE(c.node_labels.size() == 3);
  CHECK(c.node_labels[1].key == "tier");
  CHECK(c.node_labels[1].value == "gold");
  CHECK(c.node_labels[2].value.empty());
  CHECK(c.default_labels);
  CHECK_FALSE(config({{"default_labels", "off"}}).default_labels);
  // EKS's spellings map onto Karpenter's.
  CHECK(config({{"capacity_type", "ON_DEMAND"}}).capacity_type == std::optional<CapacityType>(CapacityType::on_demand));
  CHECK(config({{"capacity_type", "SPOT"}}).capacity_type == std::optional<CapacityType>(CapacityType::spot));
  CHECK(config({{"capacity_type", "spot"}}).capacity_type == std::optional<CapacityType>(CapacityType::spot));
  // The downward API gives "" where the pod has no topology label (Kubernetes before 1.35): unset.
  CHECK_FALSE(config({}, {{"RAYLAUNCH_ZONE", ""}}).zone);
}

TEST_CASE("hostile label settings are refused with one line, exit 64", "[labels][config][bad-input]") {
  CHECK(one_error({{"capacity_type", "preemptible"}}) ==
        "--capacity-type: \"preemptible\" is not valid (expected on-demand, spot or reserved "
        "(karpenter.sh/capacity-type), or ON_DEMAND, SPOT or CAPACITY_BLOCK (eks.amazonaws.com/capacityType): the "
        "node pool's label of the node)");
  CHECK(one_error({}, {{"RAYLAUNCH_ZONE", "us west"}}) ==
        "RAYLAUNCH_ZONE: \"us west\" is not valid (expected a label value: at most 63 characters, letters, digits, "
        "'-', '_' or '.', a letter or digit at both ends (Kubernetes label syntax, which Ray checks))");
  CHECK(one_error({{"region", std::string(64, 'r')}}).starts_with("--region: \"rrrr"));
  CHECK(one_error({{"zone", "a\nb"}}).starts_with("--zone: \"a\\nb\" is not valid"));
  CHECK(one_error({{"zone", std::string("\x01\xff", 2)}}).find('\n') == std::string::npos);
  const std::string labels_expected =
      "is not valid (expected labels as key=value,key=value (a key: an optional DNS-subdomain prefix and '/', then a "
      "name of at most 63 letters, digits, '-', '_' or '.'; a value: the same rule, or empty), each key once)";
  for (const std::string& bad : {std::string("team"), std::string("=x"), std::string("a=1,a=2"), std::string("a=b=c"),
                                 std::string("a=1,,b=2"), std::string("k=") + std::string(64, 'v'),
                                 std::string(100000, ','), std::string("k=v\x1b[2J")}) {
    INFO(bad);
    const std::string line = one_error({{"node_labels", bad}});
    CHECK(line.starts_with("--node-labels: \""));
    CHECK(line.ends_with(labels_expected));
    CHECK(line.size() < 1000);  // a huge value is cut, not echoed whole
  }
  CHECK(one_error({{"default_labels", "yes"}}) == "--default-labels: \"yes\" is not valid (expected one of on|off)");
}
