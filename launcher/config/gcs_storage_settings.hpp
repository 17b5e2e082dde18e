#pragma once
#include <string>
#include <vector>

namespace launcher {

struct Config;

// The settings of the head's GCS store that are each valid alone but not together, one line
// each into `problems` (exit 64 before anything starts): rocksdb without RAY_gcs_storage_path
// (Ray's GCS would crash on it) or beside RAY_REDIS_ADDRESS (two stores), redis without
// RAY_REDIS_ADDRESS, and a path given while the store is not rocksdb (Ray would ignore it and
// keep its tables in memory, which the user did not mean).
void check_gcs_storage(const Config& c, std::vector<std::string>& problems);

}  // namespace launcher
