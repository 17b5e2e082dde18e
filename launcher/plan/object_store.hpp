#pragma once
#include <cstdint>
#include <string>

#include "config/config.hpp"
#include "plan/plan_items.hpp"
#include "plan/pod_facts.hpp"
#include "util/platform.hpp"

namespace launcher {

struct ObjectStoreSize {
  std::uint64_t bytes = 0;  // 0: leave it to Ray
  std::string reason;
};

// Ray's rules for --object-store-memory (python/ray/_private/services.py,
// determine_plasma_store_config; the same in ray 2.9.3 and 2.60.0), with its constants:
// the store goes in /dev/shm when it fits in the *free* space there (statvfs f_bavail ×
// f_bsize, utils.get_shared_memory_bytes); above that it falls back to /tmp (slow) when at most
// REQUIRE_SHM_SIZE_THRESHOLD = 10**10 bytes, and is refused (ValueError, `ray start` exits) when
// larger, unless RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE is set; and it is refused when larger than
// the node's memory. (The constants: platform.hpp.)
using platform::k_ray_require_shm_threshold;

// The size raylaunch passes, planned from the *free* space of /dev/shm (a container restarted on
// a memory emptyDir finds the files of the one before: they stay, and take shm and memory), minus
// headroom for NCCL's /dev/shm segments and DataLoader batches (max(8Gi, 10 % of the tmpfs), at
// most half of what is free); then Ray's own caps: 30 % of memory, 200 GB. Ray's default,
// min(30% RAM, 200 GB, max(10 GB, 0.95 × free shm)), would take 95 % of a 64Gi shm. An explicit
// setting wins.
ObjectStoreSize plan_object_store(const Config& config, const NodeFacts& node);

// Ray's verdict on `store`, before `ray start` makes it (check "object-store"): fail where Ray
// would refuse it, warn where Ray would put it in /tmp or where earlier files fill /dev/shm.
Check check_object_store(const ObjectStoreSize& store, const NodeFacts& node, const EnvMap& env);

}  // namespace launcher
