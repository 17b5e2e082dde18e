#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/plan.hpp"

using namespace launcher;

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;

PodIdentity identity(Role role) {
  PodIdentity id;
  id.role = role;
  id.ordinal = role == Role::head ? 0 : 1;
  id.nodes = 2;
  id.hostname = role == Role::head ? "training-0" : "training-1";
  id.head_host = "training-0.svc.ml.svc.cluster.local";
  return id;
}

}  // namespace

TEST_CASE("head argv: --head, port, dashboard on all interfaces, pinned raylet port", "[ray-start]") {
  const auto argv = ray_start_argv(fixtures::config({}), identity(Role::head), 8, {56 * k_gib, ""});
  CHECK(argv == std::vector<std::string>{"ray", "start", "--head", "--port=6379", "--dashboard-host=0.0.0.0",
                                         "--disable-usage-stats", "--node-name=training-0", "--num-gpus=8",
                                         "--object-store-memory=60129542144", "--node-manager-port=6380", "--metrics-export-port=8080", "--block"});
}

TEST_CASE("worker argv: the head's address, blocking", "[ray-start]") {
  const auto argv = ray_start_argv(fixtures::config({{"ray", "/opt/venv/bin/ray"}}), identity(Role::worker), 0, {});
  CHECK(argv == std::vector<std::string>{"/opt/venv/bin/ray", "start",
                                         "--address=training-0.svc.ml.svc.cluster.local:6379",
                                         "--node-name=training-1", "--num-gpus=0", "--node-manager-port=6380",
                                         "--metrics-export-port=8080", "--block"});
}

TEST_CASE("user ray start arguments are appended and replace ours", "[ray-start]") {
  const Config c = fixtures::config({{"ray_args", "--num-gpus=4 --num-cpus 90 --object-store-memory=1000000000"}});
  const auto argv = ray_start_argv(c, identity(Role::worker), 8, {56 * k_gib, ""});
  CHECK(argv == std::vector<std::string>{"ray", "start", "--address=training-0.svc.ml.svc.cluster.local:6379",
                                         "--node-name=training-1", "--node-manager-port=6380",
                                         "--metrics-export-port=8080", "--block",
                                         "--num-gpus=4", "--num-cpus", "90", "--object-store-memory=1000000000"});
}
