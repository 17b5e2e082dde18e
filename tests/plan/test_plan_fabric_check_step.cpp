// The gang fabric check in a plan (issue 27): only with --fabric-check on and more than one pod;
// its floor from the setting, else a quarter of one EFA device's line rate from the instance
// table, else none; shown in the text and the JSON.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/node_checks.hpp"
#include "plan/plan.hpp"

using namespace launcher;
using fixtures::NodeTree;

namespace {

PodFacts pod(const NodeTree& tree, const std::string& hostname) {
  PodFacts f = gather_pod_facts(fixtures::config({{"host_root", tree.path()}, {"hostname", hostname}}), {},
                                fixtures::eks_limits());
  f.node.shm = ShmFacts{64ULL << 30, 64ULL << 30, true};
  return f;
}

}  // namespace

TEST_CASE("the instance table's fabric floor: a quarter of one EFA device's line rate", "[plan][fabric-check]") {
  CHECK(fabric_floor("p4de.24xlarge") == 3'125'000'000ULL);   // 100 Gbit/s a device
  CHECK(fabric_floor("p5.48xlarge") == 3'125'000'000ULL);     // 3200 Gbit/s over 32
  CHECK(fabric_floor("p5en.48xlarge") == 6'250'000'000ULL);   // 3200 over 16
  CHECK(fabric_floor("p6-b200.48xlarge") == 12'500'000'000ULL);
  CHECK(fabric_floor("g6.8xlarge") == 781'250'000ULL);        // 25 Gbit/s
  CHECK_FALSE(fabric_floor("g5.xlarge"));                     // no EFA
  CHECK_FALSE(fabric_floor("m7i.large"));                     // not in the table
}

TEST_CASE("the fabric check in a plan: off by default, its bounds when on", "[plan][fabric-check]") {
  const NodeTree tree("p4de", "training-0");
  std::map<std::string, std::string> flags = {{"nodes", "3"}, {"namespace", "ml"}};
  const Plan off = make_plan(fixtures::config(flags), pod(tree, "training-0"), {"python3", "train.py"});
  CHECK_FALSE(off.fabric_check);
  CHECK_THAT(render_plan_text(off), !Catch::Contains("fabric check"));
  CHECK_THAT(render_plan_json(off), !Catch::Contains("\"fabric_check\""));

  flags["fabric_check"] = "on";
  const Plan on = make_plan(fixtures::config(flags), pod(tree, "training-0"), {"python3", "train.py"});
  REQUIRE(on.fabric_check);
  CHECK(on.fabric_check->provider == "efa");
  CHECK(on.fabric_check->timeout == std::chrono::seconds(30));
  CHECK(on.fabric_check->min_bandwidth == 3'125'000'000ULL);
  CHECK(on.fabric_check->min_bandwidth_source == "instance table: a quarter of one EFA device of p4de.24xlarge");
  CHECK_THAT(render_plan_text(on),
             Catch::Contains("fabric check   after the join barrier: fi_pingpong (/opt/amazon/efa/bin, then PATH) -p "
                             "efa -e rdm to the next pod of the ring, up to 30s; floor 3125 MB/s (instance table"));
  CHECK_THAT(render_plan_json(on), Catch::Contains("\"fabric_check\": {\n    \"provider\": \"efa\",\n    "
                                                   "\"min_bandwidth\": 3125000000,"));

  flags["fabric_min_bandwidth"] = "10G";
  flags["fabric_provider"] = "tcp";
  const Plan set = make_plan(fixtures::config(flags), pod(tree, "training-0"), {"python3", "train.py"});
  CHECK(set.fabric_check->min_bandwidth == 10'000'000'000ULL);
  CHECK(set.fabric_check->provider == "tcp");

  flags["nodes"] = "1";
  const Plan alone = make_plan(fixtures::config(flags), pod(NodeTree("p4de", "training-0"), "training-0"), {"x"});
  CHECK_FALSE(alone.fabric_check);  // one pod: no link to test
}

TEST_CASE("the fabric check's settings refuse what cannot work", "[config][fabric-check][bad-input]") {
  CHECK_THROWS(fixtures::config({{"fabric_check", "yes"}}));
  CHECK_THROWS(fixtures::config({{"fabric_provider", "efa tcp"}}));
  CHECK_THROWS(fixtures::config({{"fabric_min_bandwidth", "fast"}}));
  CHECK_THROWS(fixtures::config({{"fabric_check_timeout", "0"}}));
}
