// The EFA watch on node trees whose counters move or stay flat (tests/support/make-node-tree
// writes the efa driver's hw_counters; break-node-tree's `traffic` moves them).
#include <catch2/catch.hpp>

#include <fstream>

#include "fixtures.hpp"
#include "watch/efa_counters.hpp"
#include "watch/efa_watch.hpp"

using namespace launcher;
using namespace launcher::watch;
using namespace std::chrono_literals;

namespace {

const std::vector<std::string> k_p4de = {"rdmap0s0", "rdmap1s0", "rdmap2s0", "rdmap3s0"};

std::vector<EfaCounters> sample(const fixtures::NodeTree& tree, const std::vector<std::string>& devices = k_p4de) {
  return read_efa_counters(util::HostFs(tree.path()), devices);
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("EFA counters: read per device under the root; absent or bad counters read as unreadable", "[watch]") {
  fixtures::NodeTree tree("p4de");
  tree.inject("traffic rdmap1s0 1000");
  const auto counters = sample(tree, {"rdmap0s0", "rdmap1s0", "rdmap9s0"});
  REQUIRE(counters.size() == 3);
  CHECK(counters[0].readable);
  CHECK(counters[0].total() == 0);
  CHECK(counters[1].tx_bytes == 1000);
  CHECK(counters[1].recv_bytes == 1000);
  CHECK(counters[1].total() == 4000);
  CHECK_FALSE(counters[2].readable);  // no such device
  write(tree.path() + "/sys/class/infiniband/rdmap0s0/ports/1/hw_counters/rx_bytes", "lots\n");
  CHECK_FALSE(sample(tree, {"rdmap0s0"})[0].readable);
}

TEST_CASE("EFA watch: flat on every device for --efa-idle-after of the command's time says NCCL is on sockets, once",
          "[watch]") {
  fixtures::NodeTree tree("p4de");
  EfaWatch w(5min);
  CHECK(w.add(sample(tree), 0ms).state == EfaState::waiting);
  CHECK(w.add(sample(tree), 4min).state == EfaState::waiting);
  const auto flat = w.add(sample(tree), 5min);
  CHECK(flat.state == EfaState::flat);
  CHECK(flat.warn ==
        "no traffic on any of the pod's 4 EFA devices (rdmap0s0, rdmap1s0, rdmap2s0, rdmap3s0) in the 5m00s the "
        "command has run (hw_counters tx/rx/send/recv bytes flat): NCCL is likely on TCP sockets, not EFA (fix: look "
        "for NET/OFI or NET/Socket in the command's log with NCCL_DEBUG=INFO; NCCL_NET=Libfabric makes NCCL fail "
        "instead of falling back)");
  const auto again = w.add(sample(tree), 6min);
  CHECK(again.state == EfaState::flat);
  CHECK(again.warn.empty());  // said once per episode

  // One device moving is EFA: traffic is back, with its rate.
  tree.inject("traffic rdmap2s0 6000");
  const auto moving = w.add(sample(tree), 7min);
  CHECK(moving.state == EfaState::moving);
  CHECK(moving.info.find("EFA traffic again") != std::string::npos);
  REQUIRE(moving.rates.size() == 4);
  CHECK(moving.rates[2].bytes_per_second == Approx(24000.0 / 60));
  CHECK(moving.rates[0].bytes_per_second == 0);
}

TEST_CASE("EFA watch: traffic that stopped is idle or stuck, not a fallback; rdma_write_bytes is not traffic",
          "[watch]") {
  fixtures::NodeTree tree("p4de");
  EfaWatch w(2min);
  w.add(sample(tree), 0ms);
  tree.inject("traffic rdmap0s0 1");
  CHECK(w.add(sample(tree), 1min).state == EfaState::moving);
  // EFA does not count NCCL's traffic in rdma_write_bytes: only that counter moving is no traffic.
  write(tree.path() + "/sys/class/infiniband/rdmap0s0/ports/1/hw_counters/rdma_write_bytes", "123456\n");
  CHECK(w.add(sample(tree), 2min).state == EfaState::moving);
  const auto quiet = w.add(sample(tree), 3min);
  CHECK(quiet.state == EfaState::flat);
  CHECK(quiet.warn.find("for 2m00s (there was before): the collectives are idle or stuck") != std::string::npos);
}

TEST_CASE("EFA watch: counters that cannot be read are said once, never called a fallback", "[watch]") {
  fixtures::NodeTree tree("g5-noefa");
  EfaWatch w(1min);
  const auto v = w.add(sample(tree, {"rdmap0s0"}), 2min);
  CHECK(v.state == EfaState::unreadable);
  CHECK(v.warn.find("cannot read the port counters") != std::string::npos);
  CHECK(w.add(sample(tree, {"rdmap0s0"}), 3min).warn.empty());
}

TEST_CASE("EFA watch: a counter that went down (the driver reloaded) is a new base, not traffic", "[watch]") {
  fixtures::NodeTree tree("p4de");
  tree.inject("traffic rdmap0s0 5000");
  EfaWatch w(1min);
  w.add(sample(tree), 0ms);
  write(tree.path() + "/sys/class/infiniband/rdmap0s0/ports/1/hw_counters/tx_bytes", "0\n");
  CHECK(w.add(sample(tree), 1min).state == EfaState::flat);
}
