#include <catch2/catch.hpp>

#include "config/config.hpp"
#include "config/label_settings.hpp"
#include "fixtures.hpp"
#include "util/exit_codes.hpp"

using namespace launcher;
using fixtures::config;
using fixtures::fatal_lines;

namespace {

std::string one_error(const std::map<std::string, std::string>& flags, const EnvMap& env = {}) {
  int code = 0;
  const auto lines = fatal_lines([&] { config(flags, env); }, &code);
  CHECK(code == exit_code::usage);
  REQUIRE(lines.size() == 1);
  return lines[0];
}

}  // namespace

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
