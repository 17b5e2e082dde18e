#pragma once
#include <memory>

#include "config/config.hpp"
#include "redis/redis_wait.hpp"
#include "redis/tls_client.hpp"

namespace launcher {

// For rediss://, the TLS client every Redis connection of this command uses, loaded from the
// settings (RAY_REDIS_CA_CERT, ...; the server name defaults to the address's host); null for
// a plaintext address. A file that cannot be used throws Fatal(64) with one line naming the
// setting, before anything starts.
std::shared_ptr<const redis::TlsClient> redis_tls_or_fatal(const Config& config);

// The Redis of GCS fault tolerance as `wait redis` and `redis-cleanup` reach it: the address,
// REDIS_USERNAME and REDIS_PASSWORD, and the TLS client. Throws Fatal(64) without an address.
redis::RedisTarget redis_target_or_fatal(const Config& config, const char* command);

}  // namespace launcher
