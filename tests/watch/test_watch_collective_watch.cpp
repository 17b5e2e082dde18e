// Stuck collectives from RAS dumps: a communicator waiting, unchanged, across K polls.
#include <catch2/catch.hpp>

#include "watch/collective_watch.hpp"

using namespace launcher::watch;

namespace {

// A communicator of `size` ranks where rank `behind` (if any) is one AllReduce behind the others.
RasStatus job(std::uint64_t ops, int size = 4, int behind = 3) {
  RasStatus s;
  s.format = RasFormat::json;
  RasComm c;
  c.hash = "7f3a";
  c.size = size;
  for (int r = 0; r < size; ++r) {
    const std::uint64_t n = r == behind ? ops - 1 : ops;
    c.ranks.push_back({r, "10.0.0." + std::to_string(1 + r / 2), 100 + r, r % 2, "", n});
    c.progress += std::to_string(r) + ":" + std::to_string(n) + ",";
  }
  c.counts_differ = behind >= 0;
  s.comms.push_back(c);
  s.communicators = 1;
  return s;
}

}  // namespace

TEST_CASE("a communicator waiting unchanged across K polls is stuck, once; the line names the laggers and pods",
          "[watch]") {
  CollectiveWatch w(3, [](const std::string& ip) { return ip == "10.0.0.2" ? std::string("training-1") : ""; });
  CHECK(w.add(job(100)).stuck_line.empty());
  CHECK(w.add(job(100)).stuck_line.empty());
  const auto stuck = w.add(job(100));
  CHECK(stuck.waiting == 1);
  CHECK(stuck.stuck == 1);
  CHECK(stuck.stuck_line ==
        "NCCL communicator 7f3a (4 ranks) made no progress across 3 RAS polls, waiting for the lagging rank 3 (GPU 1, "
        "process 103 on node 10.0.0.2) at operation 99 = pod training-1; pods: training-1");
  const auto still = w.add(job(100));
  CHECK(still.stuck == 1);
  CHECK(still.stuck_line.empty());  // said once
  const auto moved = w.add(job(101));
  CHECK(moved.stuck == 0);
  CHECK(moved.info == "NCCL communicator 7f3a moved again");
}

TEST_CASE("progress between polls resets the count; agreeing ranks are never stuck, even when still", "[watch]") {
  CollectiveWatch w(2);
  for (std::uint64_t ops = 100; ops < 110; ++ops) {
    CHECK(w.add(job(ops)).stuck == 0);  // always one behind, but moving
  }
  CollectiveWatch idle(2);
  for (int i = 0; i < 5; ++i) {
    const auto v = idle.add(job(100, 4, -1));  // ranks agree: idle, or between steps
    CHECK(v.waiting == 0);
    CHECK(v.stuck == 0);
  }
}

TEST_CASE("missing ranks count as waiting; a finished communicator does not", "[watch]") {
  RasStatus s = job(100, 4, -1);
  s.comms[0].missing.push_back({3, "10.0.0.2", 103, 1, "", std::nullopt});
  s.comms[0].missing_count = 1;
  s.comms[0].progress += "missing 3,";
  s.dead_processes = 1;
  s.dead = {"process 103 on node 10.0.0.2"};
  CollectiveWatch w(2);
  w.add(s);
  const auto v = w.add(s);
  CHECK(v.stuck_line ==
        "NCCL communicator 7f3a (4 ranks) made no progress across 2 RAS polls, waiting for the lagging rank 3 (GPU 1, "
        "process 103 on node 10.0.0.2); no data from 1 rank; RAS considers 1 process dead (process 103 on node "
        "10.0.0.2)");
  s.comms[0].finished = true;
  CollectiveWatch f(2);
  f.add(s);
  CHECK(f.add(s).stuck == 0);
}
