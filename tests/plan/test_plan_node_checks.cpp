#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/node_checks.hpp"

using namespace launcher;

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;

NodeFacts p4de_facts() {
  NodeFacts n;
  n.instance_type = "p4de.24xlarge";
  n.efa_devices = {"rdmap0s0", "rdmap1s0", "rdmap2s0", "rdmap3s0"};
  n.gpu_dev_nodes = 8;
  n.gpu_proc_entries = 8;
  n.shm = ShmFacts{64 * k_gib, 64 * k_gib, true};
  n.hugetlb_known = true;
  n.hugetlb_2mb_limit = 5120ULL << 20;
  return n;
}

Check find(const std::vector<Check>& checks, const std::string& name) {
  for (const Check& c : checks) {
    if (c.name == name) {
      return c;
    }
  }
  FAIL("no check named " << name);
  throw std::logic_error("unreachable");
}

std::vector<Check> run(const NodeFacts& n, const std::map<std::string, std::string>& flags = {},
                       const util::ProcessLimits& limits = fixtures::eks_limits()) {
  return node_checks(n, limits, settle_expectations(fixtures::config(flags), n));
}

util::ProcessLimits with_memlock(util::Limit memlock) {
  util::ProcessLimits l = fixtures::eks_limits();
  l.memlock = memlock;
  return l;
}

util::ProcessLimits with_nofile(util::Limit nofile) {
  util::ProcessLimits l = fixtures::eks_limits();
  l.nofile = nofile;
  return l;
}

}  // namespace

TEST_CASE("a healthy p4de pod passes every check", "[checks]") {
  for (const Check& c : run(p4de_facts())) {
    INFO(c.name << ": " << c.detail);
    CHECK(c.status == CheckStatus::pass);
  }
}

TEST_CASE("expectations come from the instance table unless set", "[checks]") {
  const Expectations e = settle_expectations(fixtures::config({}), p4de_facts());
  CHECK(e.gpus == 8);
  CHECK(e.efa == 4);
  CHECK(e.gpus_source == "p4de.24xlarge");
  CHECK(e.shm_min == 64 * k_gib);
  const Expectations set = settle_expectations(fixtures::config({{"gpus", "4"}, {"shm_min", "8Gi"}}), p4de_facts());
  CHECK(set.gpus == 4);
  CHECK(set.gpus_source == "--gpus");
  CHECK(set.shm_min == 8 * k_gib);
  NodeFacts ws;
  CHECK(settle_expectations(fixtures::config({}), ws).gpus == -1);
  CHECK(settle_expectations(fixtures::config({}), ws).shm_min == 1 * k_gib);
}

TEST_CASE("the container's default 64Mi /dev/shm fails with the fix", "[checks]") {
  NodeFacts n = p4de_facts();
  n.shm = ShmFacts{64ULL << 20, 64ULL << 20, true};
  const Check c = find(run(n), "shm");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == "tmpfs 64Mi, 64Mi free; minimum 64Gi (GPUs expected)");
  CHECK(c.fix.starts_with("mount an emptyDir {medium: Memory, sizeLimit: 64Gi} at /dev/shm"));
  n.shm.reset();
  CHECK(find(run(n), "shm").status == CheckStatus::fail);
}

TEST_CASE("a disk-backed /dev/shm only warns", "[checks]") {
  NodeFacts n = p4de_facts();
  n.shm->is_tmpfs = false;
  CHECK(find(run(n), "shm").status == CheckStatus::warn);
}

TEST_CASE("missing EFA devices fail, extra ones warn", "[checks]") {
  NodeFacts n = p4de_facts();
  n.efa_devices.resize(2);
  const Check c = find(run(n), "efa");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == "2 EFA devices found, 4 expected (p4de.24xlarge)");
  CHECK(c.fix.starts_with("request vpc.amazonaws.com/efa: 4"));
  CHECK(find(run(p4de_facts(), {{"efa", "2"}}), "efa").status == CheckStatus::warn);
}

TEST_CASE("non-EFA uverbs devices warn about the hostPath", "[checks]") {
  NodeFacts n = p4de_facts();
  n.other_uverbs = {"mlx5_0 (mlx5_core)"};
  const Check c = find(run(n), "efa");
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.fix.starts_with("remove the /dev/infiniband hostPath"));
}

TEST_CASE("fewer GPUs than expected fail", "[checks]") {
  NodeFacts n = p4de_facts();
  n.gpu_dev_nodes = 4;
  n.gpu_proc_entries = 4;
  const Check c = find(run(n), "gpus");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == "4 GPUs found, 8 expected (p4de.24xlarge)");
}

TEST_CASE("limited memlock with EFA warns, raisable memlock passes, and the plan raises it", "[checks]") {
  NodeFacts n = p4de_facts();
  CHECK(find(run(n, {}, with_memlock({65536, 65536})), "memlock").status == CheckStatus::warn);
  CHECK_FALSE(memlock_raise(n, with_memlock({65536, 65536})).has_value());
  CHECK(find(run(n, {}, with_memlock({65536, std::nullopt})), "memlock").detail ==
        "soft 65536, hard unlimited: raising soft to unlimited");
  const auto raise = memlock_raise(n, with_memlock({65536, std::nullopt}));
  REQUIRE(raise.has_value());
  CHECK(describe(Action(*raise)) == "raise RLIMIT_MEMLOCK soft limit to unlimited");
  n.efa_devices.clear();
  CHECK(find(run(n, {{"efa", "0"}}, with_memlock({65536, 65536})), "memlock").status == CheckStatus::pass);
  CHECK_FALSE(memlock_raise(n, with_memlock({65536, std::nullopt})).has_value());  // no EFA: nothing to raise
}

TEST_CASE("the open-file soft limit is raised to min(hard, 65536)", "[checks]") {
  NodeFacts n = p4de_facts();
  CHECK(nofile_raise(with_nofile({1024, 1048576}))->soft == std::optional<std::uint64_t>(65536));
  CHECK(find(run(n, {}, with_nofile({1024, 1048576})), "nofile").status == CheckStatus::pass);
  CHECK(nofile_raise(with_nofile({1024, 4096}))->soft == std::optional<std::uint64_t>(4096));
  CHECK(find(run(n, {}, with_nofile({1024, 4096})), "nofile").status == CheckStatus::warn);
  CHECK_FALSE(nofile_raise(with_nofile({65536, 65536})).has_value());
}

TEST_CASE("the shm fix names the size the check asked for", "[checks]") {
  NodeFacts n = p4de_facts();
  n.shm = ShmFacts{64 * k_gib, 64 * k_gib, true};
  const Check c = find(run(n, {{"shm_min", "128Gi"}}), "shm");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.fix == "mount an emptyDir {medium: Memory, sizeLimit: 128Gi} at /dev/shm (the container default is 64Mi)");
}

TEST_CASE("a zero hugetlb limit with EFA warns", "[checks]") {
  NodeFacts n = p4de_facts();
  n.hugetlb_2mb_limit = 0;
  const Check c = find(run(n), "hugetlb");
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.fix == "request hugepages-2Mi (the opt-in manifests/components/hugepages), or keep FI_EFA_USE_HUGE_PAGE=0");
}

TEST_CASE("a limited memlock passes with CAP_IPC_LOCK, which pins past the limit", "[checks]") {
  util::ProcessLimits limits = with_memlock({65536, 65536});
  limits.cap_ipc_lock = true;
  const Check c = find(run(p4de_facts(), {}, limits), "memlock");
  CHECK(c.status == CheckStatus::pass);
  CHECK(c.detail == "limited to 65536/65536 bytes, but CAP_IPC_LOCK is effective: EFA may pin memory beyond it");
}
