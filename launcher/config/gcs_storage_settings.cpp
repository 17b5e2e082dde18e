#include "config/gcs_storage_settings.hpp"

#include "config/config.hpp"

namespace launcher {

void check_gcs_storage(const Config& c, std::vector<std::string>& problems) {
  // A setting nobody gave is named by its variable.
  const std::string given = c.source_of(&Config::gcs_storage);
  const std::string storage = given == "default" ? "RAY_gcs_storage" : given;
  const std::string path = c.source_of(&Config::gcs_storage_path);
  switch (c.gcs_storage) {
    case GcsStorage::rocksdb:
      if (c.gcs_storage_path.empty()) {
        // Ray's GCS aborts at start on it ("RAY_gcs_storage=rocksdb requires RAY_gcs_storage_path").
        problems.push_back(storage + "=rocksdb needs RAY_gcs_storage_path (expected the head's directory on a "
                                     "persistent volume, such as /data/gcs)");
      }
      if (c.redis_address) {
        problems.push_back(storage + "=rocksdb and " + c.source_of(&Config::redis_address) +
                           " are both set (expected one store for the head's GCS: unset RAY_REDIS_ADDRESS for "
                           "the volume, or set RAY_gcs_storage=redis for Redis)");
      }
      return;
    case GcsStorage::redis:
      if (!c.redis_address) {
        problems.push_back(storage + "=redis needs RAY_REDIS_ADDRESS (expected host:port or redis://host:port of "
                                     "the Redis that keeps the head's tables)");
      }
      break;
    case GcsStorage::memory:
      break;
  }
  if (!c.gcs_storage_path.empty()) {
    problems.push_back(path + " is set but " + storage + " is " + (c.gcs_storage == GcsStorage::memory ? "memory" : "redis") + ", not rocksdb (expected RAY_gcs_storage=rocksdb to keep "
                                                         "the head's GCS on that volume, or no path)");
  }
}

}  // namespace launcher
