#include <catch2/catch.hpp>

#include <unistd.h>

#include <thread>

#include "gang/fabric_round.hpp"
#include "gang/pod_test.hpp"
#include "map_kv.hpp"

using namespace launcher::gang;
using std::chrono::milliseconds;

namespace {

using launcher::testing::MapKv;

std::string pingpong() {
  const auto found = find_pingpong("", "/usr/bin:/bin");
  return found ? found.value() : "";
}

// Pod `ordinal` of `nodes`, all on this machine: each serves on a port of its own.
RoundSpec pod(int ordinal, int nodes, const std::string& exe, milliseconds timeout) {
  RoundSpec s;
  s.cluster = "c0ffee";
  s.round = "1";
  s.ordinal = ordinal;
  s.nodes = nodes;
  for (int i = 0; i < nodes; ++i) {
    s.pods.push_back("training-" + std::to_string(i));
  }
  s.exe = exe;
  s.provider = "tcp";
  s.port = 47700 + static_cast<int>(::getpid() % 200) * 3 + ordinal;
  s.address = "127.0.0.1";
  s.timeout = timeout;
  s.go_wait = milliseconds(10'000);
  return s;
}

}  // namespace

TEST_CASE("a round of three pods on real fi_pingpong: every link measured", "[gang][round]") {
  const std::string exe = pingpong();
  if (exe.empty()) {
    WARN("skipped: no fi_pingpong (Debian: libfabric-bin)");
    return;
  }
  MapKv kv;
  std::jthread w1([&] { worker_round(kv, pod(1, 3, exe, milliseconds(20'000)), {}); });
  std::jthread w2([&] { worker_round(kv, pod(2, 3, exe, milliseconds(20'000)), {}); });
  const auto reports = head_round(kv, pod(0, 3, exe, milliseconds(20'000)), {});
  REQUIRE(reports.size() == 3);
  for (const LinkReport& r : reports) {
    INFO(r.problem);
    CHECK(r.failure == LinkFailure::none);
    CHECK(r.measure.bandwidth > 0);
    CHECK(r.measure.latency_us > 0);
  }
  CHECK(reports[2].link == Link{2, 0});
}

TEST_CASE("a pod without the tool and a silent pod: named, within the bound", "[gang][round]") {
  const std::string exe = pingpong();
  if (exe.empty()) {
    WARN("skipped: no fi_pingpong (Debian: libfabric-bin)");
    return;
  }
  MapKv kv;
  RoundSpec no_tool = pod(1, 3, "", milliseconds(3'000));
  no_tool.tool_problem = "fi_pingpong not found in /opt/amazon/efa/bin or on PATH";
  std::jthread w1([&] { worker_round(kv, no_tool, {}); });
  // Pod 2 never takes part.
  const auto started = std::chrono::steady_clock::now();
  const auto reports = head_round(kv, pod(0, 3, exe, milliseconds(3'000)), {});
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(reports.size() == 3);
  CHECK(reports[0].failure == LinkFailure::server_setup);  // 0 → 1: pod 1 has no tool to serve with
  CHECK(reports[0].problem.find("fi_pingpong not found") != std::string::npos);
  CHECK(reports[1].failure == LinkFailure::client_setup);  // 1 → 2: pod 1 reported it cannot run it
  CHECK(reports[2].failure == LinkFailure::silent);        // 2 → 0: nothing from pod 2
  CHECK(reports[2].problem == "training-2 reported no result within 3s");
  CHECK(took < std::chrono::seconds(9));  // the bound and its 3 s slack for reports: not the join timeout
}
