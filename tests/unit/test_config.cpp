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
        "1h or 1500ms)");
  CHECK(one_error({{"shm_min", "64GB"}}) ==
        "--shm-min: \"64GB\" is not valid (expected a size in bytes or with a suffix such as 64Gi, 512Mi, 60G)");
  CHECK(one_error({{"object_store_memory", "lots"}}).starts_with("--object-store-memory: \"lots\""));
  CHECK(one_error({{"ray_port", "70000"}}) ==
        "--ray-port: \"70000\" is not valid (expected a whole number from 1 to 65535)");
  CHECK(one_error({{"output", "yaml"}}) == "--output: \"yaml\" is not valid (expected one of text|json)");
  CHECK(one_error({{"host_root", "relative/dir"}}) ==
        "--host-root: \"relative/dir\" is not valid (expected an absolute directory path)");
  CHECK(one_error({{"address", "training-0"}}) ==
        "--address: \"training-0\" is not valid (expected HOST:PORT such as "
        "training-0.training-svc.ml.svc.cluster.local:6379)");
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
  CHECK(config({}, {{"RAYLAUNCH_JOIN_TIMEOUT", "10m"}}).source_of("join_timeout") == "RAYLAUNCH_JOIN_TIMEOUT");
}
