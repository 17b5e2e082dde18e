#include "redis/redis_wait.hpp"

#include <spdlog/spdlog.h>

#include <memory>

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::redis {

net::StagedCheck redis_check(const RedisTarget& target, std::shared_ptr<std::string> answered_ip) {
  return net::StagedCheck(
      target.address, "Redis",
      [credentials = target.credentials, tls = target.tls, answered_ip = std::move(answered_ip)](
          const net::HostPort& where, const std::string& ip, std::chrono::milliseconds timeout, std::stop_token stop) {
        using Kind = net::ProtocolAnswer::Kind;
        auto connection = Connection::open(ip, where.port, timeout, timeout, stop, tls);
        if (!connection) {
          return net::ProtocolAnswer{connection.error().will_not_heal() ? Kind::refused : Kind::failed,
                                     connection.error().detail};
        }
        const auto pong = connection.value().authenticate(credentials);
        if (!pong) {
          return net::ProtocolAnswer{pong.error().will_not_heal() ? Kind::refused : Kind::failed, pong.error().detail};
        }
        if (answered_ip) {
          *answered_ip = ip;
        }
        return net::ProtocolAnswer{Kind::ready, pong.value()};
      });
}

RedisWaitResult wait_for_redis(const std::string& what, const net::AttemptFn& attempt,
                               const util::WaitOptions& options, util::Clock& clock, std::stop_token stop) {
  spdlog::info("waiting for {} to answer PING (timeout {})", what, util::format_duration(options.timeout));
  RedisWaitResult result{net::wait_staged(what, attempt, options, clock, std::move(stop)), /*ip=*/{}};
  if (result.end == util::WaitEnd::ready) {
    spdlog::info("{} is ready: {} ({} ms, {})", what, result.answer, result.elapsed.count(),
                 util::plural(result.attempts, "attempt"));
  }
  return result;
}

RedisWaitResult wait_for_redis(const RedisTarget& target, const util::WaitOptions& options, util::Clock& clock,
                               std::stop_token stop) {
  auto ip = std::make_shared<std::string>();
  const net::StagedCheck check = redis_check(target, ip);
  RedisWaitResult result = wait_for_redis(
      "Redis at " + target.address.text() + (target.tls ? " (TLS)" : ""),
      [&check](std::chrono::milliseconds timeout, std::stop_token s) { return check.attempt(timeout, std::move(s)); },
      options, clock, std::move(stop));
  if (result.end == util::WaitEnd::ready) {
    result.ip = *ip;
  }
  return result;
}

}  // namespace launcher::redis
