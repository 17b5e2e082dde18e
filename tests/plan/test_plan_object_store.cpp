#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/object_store.hpp"

using namespace launcher;

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;

NodeFacts shm(std::uint64_t total, std::optional<std::uint64_t> memory = std::nullopt,
              std::optional<std::uint64_t> free = std::nullopt) {
  NodeFacts n;
  n.shm = ShmFacts{total, free.value_or(total), true};
  n.memory_bytes = memory;
  return n;
}

}  // namespace

TEST_CASE("the object store leaves /dev/shm headroom for NCCL and DataLoader", "[object-store]") {
  // 64Gi shm: Ray's default would take 95% of it; we keep 8Gi free.
  const ObjectStoreSize s64 = plan_object_store(fixtures::config({}), shm(64 * k_gib, 1100 * k_gib));
  CHECK(s64.bytes == 56 * k_gib);
  CHECK(s64.reason == "/dev/shm 64Gi minus 8Gi headroom for NCCL and DataLoader");
  // 1Ti shm: 10% headroom, then Ray's 200 GB cap.
  CHECK(plan_object_store(fixtures::config({}), shm(1024 * k_gib, 2000 * k_gib)).bytes == 200'000'000'000ULL);
  // Small shm: at most half for headroom.
  CHECK(plan_object_store(fixtures::config({}), shm(4 * k_gib)).bytes == 2 * k_gib);
  // Memory-bound: 30% of memory, Ray's default share.
  CHECK(plan_object_store(fixtures::config({}), shm(64 * k_gib, 100 * k_gib)).bytes == (30 * k_gib) - (30 * k_gib) % 4096);
  // Too small for Ray, or no /dev/shm at all: left to Ray.
  CHECK(plan_object_store(fixtures::config({}), shm(64ULL << 20)).bytes == 0);
  CHECK(plan_object_store(fixtures::config({}), NodeFacts{}).bytes == 0);
  // Explicit setting wins.
  const ObjectStoreSize set = plan_object_store(fixtures::config({{"object_store_memory", "10Gi"}}), shm(64 * k_gib));
  CHECK(set.bytes == 10 * k_gib);
  CHECK(set.reason == "set by --object-store-memory");
}

TEST_CASE("a restarted container's leftovers in /dev/shm: sized from the free space, as Ray measures it",
          "[object-store]") {
  // A memory emptyDir outlives the container: 40Gi of the last one's files are still there.
  const NodeFacts node = shm(64 * k_gib, 1100 * k_gib, 24 * k_gib);
  const ObjectStoreSize s = plan_object_store(fixtures::config({}), node);
  CHECK(s.bytes == 16 * k_gib);  // 24Gi free minus 8Gi headroom; from the total it would be 56Gi
  CHECK(s.reason == "/dev/shm 64Gi, 24Gi free, minus 8Gi headroom for NCCL and DataLoader");
  const Check c = check_object_store(s, node, {});
  CHECK(c.status == CheckStatus::warn);
  CHECK(c.detail == "17179869184 bytes (16Gi) fits: /dev/shm has 24Gi free of 64Gi (40Gi taken by files already there)");
  // Almost full: too little for Ray's 75Mi minimum, left to Ray.
  CHECK(plan_object_store(fixtures::config({}), shm(64 * k_gib, 1100 * k_gib, 100ULL << 20)).bytes == 0);
}

TEST_CASE("Ray's verdict on an explicit size, before ray start", "[object-store]") {
  const NodeFacts node = shm(64 * k_gib, 1100 * k_gib, 20 * k_gib);
  auto verdict = [&](std::uint64_t bytes, const EnvMap& env = {}) {
    return check_object_store({bytes, "set by --object-store-memory"}, node, env);
  };
  SECTION("fits in the free space: pass (with the leftovers named)") {
    CHECK(verdict(16 * k_gib).status == CheckStatus::warn);
    CHECK(check_object_store({16 * k_gib, ""}, shm(64 * k_gib), {}).status == CheckStatus::pass);
  }
  SECTION("above the free space and above 10**10 bytes: Ray refuses it (ValueError), so does the plan") {
    const Check c = verdict(30 * k_gib);
    CHECK(c.status == CheckStatus::fail);
    CHECK(c.detail.find("Ray refuses a store above 10 GB that is larger than /dev/shm's free space") !=
          std::string::npos);
    CHECK(verdict(30 * k_gib, {{"RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE", "1"}}).status == CheckStatus::warn);
  }
  SECTION("above the free space, at most 10**10 bytes: Ray falls back to /tmp, slowly: warn") {
    const NodeFacts small = shm(8 * k_gib, 1100 * k_gib, 2 * k_gib);
    const Check c = check_object_store({k_ray_require_shm_threshold, ""}, small, {});
    CHECK(c.status == CheckStatus::warn);
    CHECK(c.detail.find("Ray puts the store in /tmp instead") != std::string::npos);
  }
  SECTION("more than the node's memory: Ray refuses it") {
    CHECK(check_object_store({2000 * k_gib, ""}, node, {}).status == CheckStatus::fail);
  }
}
