#pragma once
#include <chrono>
#include <functional>
#include <stop_token>
#include <string>

#include "net/host_port.hpp"
#include "net/staged_check.hpp"
#include "redis/connection.hpp"
#include "redis/tls_client.hpp"
#include "util/clock.hpp"
#include "util/paced_wait.hpp"

namespace launcher::redis {

// The Redis a head's GCS will keep its tables in (RAY_REDIS_ADDRESS, REDIS_USERNAME,
// REDIS_PASSWORD), as raylaunch checks it.
struct RedisTarget {
  net::HostPort address;  // without the redis:// or rediss:// scheme
  Credentials credentials;
  std::shared_ptr<const TlsClient> tls;  // rediss://: every connection verified TLS; null: plain TCP
};

// One attempt in stages, each failure named by its stage: DNS (c-ares), TCP connect, then
// "Redis": the TLS handshake (rediss://) and AUTH and PING in one round trip on a fresh
// connection to the IP that accepted TCP. Rejected credentials and a certificate that does not
// verify are `refused` (they will not heal); a server that is not Redis, does not answer, or
// answers LOADING is `failed` and retried. When `answered_ip` is given, the IP
// that answered PONG is written there.
net::StagedCheck redis_check(const RedisTarget& target, std::shared_ptr<std::string> answered_ip = nullptr);

// The Redis wait's pacing is net::staged_wait_options, as the head's wait for its GCS.
struct RedisWaitResult : net::StagedWaitResult {
  std::string ip;  // when ready: the IP that answered (connect there, not by name again)
};

// Waits until `target` answers PING after AUTH, its credentials are rejected, the deadline of
// `options` passes or `stop` is requested; logs each failure's reason (at every change and
// every 10 s) through util::paced_wait. Map `end` to the exit code with app's exit_code_of():
// ready 0, unreachable 69, refused 69 (at once), stopped 128+N. This is what `run` calls on
// the head before `ray start` when RAY_REDIS_ADDRESS is set, and what `raylaunch wait redis`
// and `raylaunch redis-cleanup` call first.
RedisWaitResult wait_for_redis(const RedisTarget& target, const util::WaitOptions& options, util::Clock& clock,
                               std::stop_token stop);

// The same loop around any attempt function (tests drive it on a fake clock); `what` names
// the target in log lines ("Redis at redis.redis.svc:6379").
RedisWaitResult wait_for_redis(const std::string& what, const net::AttemptFn& attempt,
                               const util::WaitOptions& options, util::Clock& clock, std::stop_token stop);

}  // namespace launcher::redis
