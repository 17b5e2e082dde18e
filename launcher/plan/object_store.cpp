#include "plan/object_store.hpp"

#include <algorithm>

#include "util/env_map.hpp"
#include "util/parse.hpp"
#include "util/platform.hpp"

namespace launcher {

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;
using platform::k_ray_max_object_store;
using platform::k_ray_min_object_store;
// Files in /dev/shm at start worth a word: a fresh container's /dev/shm is empty, but small
// semaphores and sockets are common.
constexpr std::uint64_t k_noticeable_leftovers = 64ULL << 20;

std::string size(std::uint64_t bytes) { return util::format_size(bytes); }

}  // namespace

ObjectStoreSize plan_object_store(const Config& config, const NodeFacts& node) {
  if (config.object_store_memory) {
    return {*config.object_store_memory, "set by " + config.source_of(&Config::object_store_memory)};
  }
  if (!node.shm) {
    return {0, "no /dev/shm: left to Ray"};
  }
  const std::uint64_t total = node.shm->total;
  const std::uint64_t free = std::min(node.shm->available, total);
  const std::string shm = "/dev/shm " + size(total) + (free < total ? ", " + size(free) + " free," : "");
  const std::uint64_t headroom = std::min(std::max(8 * k_gib, total / 10), free / 2);
  std::uint64_t store = free - headroom;
  std::string reason = shm + " minus " + size(headroom) + " headroom for NCCL and DataLoader";
  if (node.memory_bytes && store > *node.memory_bytes * 3 / 10) {
    store = *node.memory_bytes * 3 / 10;
    reason = "30% of memory " + size(*node.memory_bytes) + " (Ray's default share)";
  }
  if (store > k_ray_max_object_store) {
    store = k_ray_max_object_store;
    reason = "Ray's 200 GB cap";
  }
  if (store < k_ray_min_object_store) {
    return {0, shm + " leaves less than Ray's 75Mi minimum: left to Ray"};
  }
  store -= store % 4096;  // whole pages
  return {store, reason};
}

Check check_object_store(const ObjectStoreSize& store, const NodeFacts& node, const EnvMap& env) {
  Check c{"object-store", CheckStatus::pass, "", ""};
  if (store.bytes == 0) {
    c.detail = store.reason;
    return c;
  }
  const std::string want = std::to_string(store.bytes) + " bytes (" + size(store.bytes) + ")";
  if (node.memory_bytes && store.bytes > *node.memory_bytes) {
    return {"object-store", CheckStatus::fail,
            want + " is more than the node's memory " + size(*node.memory_bytes) +
                ": Ray refuses it (\"greater than the total available memory\")",
            "lower --object-store-memory, or leave it unset"};
  }
  if (!node.shm) {
    c.detail = want + "; no /dev/shm: Ray puts the store in /tmp";
    return c;
  }
  const std::uint64_t free = node.shm->available;
  const std::uint64_t used = node.shm->total > free ? node.shm->total - free : 0;
  const std::string in_shm = "/dev/shm has " + size(free) + " free of " + size(node.shm->total) +
                             (used >= k_noticeable_leftovers ? " (" + size(used) + " taken by files already there)"
                                                             : "");
  if (store.bytes > free) {
    const bool slow_ok = !util::env_value(env, "RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE").empty();
    if (store.bytes > k_ray_require_shm_threshold && !slow_ok) {
      return {"object-store", CheckStatus::fail,
              want + " does not fit: " + in_shm +
                  ", and Ray refuses a store above 10 GB that is larger than /dev/shm's free space",
              "lower --object-store-memory (or leave it unset: raylaunch sizes it from the free space), or enlarge the "
              "/dev/shm emptyDir"};
    }
    return {"object-store", CheckStatus::warn,
            want + " does not fit: " + in_shm + ": Ray puts the store in /tmp instead, much slower",
            "lower --object-store-memory, or leave it unset (raylaunch sizes it from the free space)"};
  }
  c.detail = want + " fits: " + in_shm;
  if (used >= k_noticeable_leftovers) {
    c.status = CheckStatus::warn;
    c.fix = "files from an earlier container of this pod stay in a memory emptyDir and count against the pod's "
            "memory: recreate the pod to start with an empty /dev/shm";
  }
  return c;
}

}  // namespace launcher
