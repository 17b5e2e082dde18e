#include <spdlog/spdlog.h>

#include <cstdio>

#include "app/commands.hpp"
#include "app/outcome.hpp"
#include "app/redis_target.hpp"
#include "app/stop_on_signal.hpp"
#include "redis/cleanup.hpp"
#include "redis/redis_wait.hpp"
#include "util/fatal.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// Each exchange of the cleanup (a SCAN batch, its HLENs and UNLINK) may take this long on a
// busy server before the cleanup gives up with 69 (the Job retries it; what was deleted stays
// deleted).
constexpr std::chrono::milliseconds k_command_timeout{10'000};

// Deleting keys cannot be undone, so the namespace must be named: an empty one names no
// cluster, and Ray's default "default" is shared by every cluster that left it unset.
void require_namespace(const Config& config, const EnvMap& env) {
  if (config.source_of("storage_namespace") != "default") {
    return;
  }
  if (auto it = env.find("RAY_external_storage_namespace"); it != env.end()) {
    throw Fatal(exit_code::usage, "RAY_external_storage_namespace is empty (expected this cluster's storage namespace; "
                                  "an empty one names no cluster, and nothing is deleted)");
  }
  throw Fatal(exit_code::usage,
              "redis-cleanup: no storage namespace given (expected RAY_external_storage_namespace or "
              "--storage-namespace; Ray's default \"default\" is not assumed: pass --storage-namespace default "
              "to clean a cluster that used it)");
}

int failed(const redis::RedisError& error, int signal) {
  if (error.kind == redis::RedisError::Kind::stopped) {
    return finish_wait(util::WaitEnd::stopped, "", signal);
  }
  return finish_wait(error.will_not_heal() ? util::WaitEnd::refused : util::WaitEnd::unreachable,
                     "redis-cleanup: " + error.detail, signal);
}

}  // namespace

// Waits for Redis as the head's preflight does (same deadline and backoff), then deletes one
// cluster's keys (redis::cleanup_namespace) and prints what it deleted. Exit 0; 64 bad input;
// 69 Redis unreachable, credentials rejected, or an error reply mid-way; 128+N on a signal.
int cmd_redis_cleanup(const Invocation& inv) {
  const Config& config = inv.config;
  const redis::RedisTarget target = redis_target_or_fatal(config, "redis-cleanup");
  require_namespace(config, inv.env);
  util::SteadyClock clock;
  const StopOnSignal signals;
  const redis::RedisWaitResult waited =
      redis::wait_for_redis(target, net::staged_wait_options(config.join_timeout), clock, signals.token());
  if (waited.end != util::WaitEnd::ready) {
    return finish_wait(waited.end, waited.reason, signals.signal());
  }
  // The address that just answered, not the name again: no second DNS answer to trust.
  auto connection = redis::Connection::open(waited.ip, target.address.port, k_command_timeout, k_command_timeout,
                                            signals.token(), target.tls);
  if (!connection) {
    return failed(connection.error(), signals.signal());
  }
  if (const auto pong = connection.value().authenticate(target.credentials); !pong) {
    return failed(pong.error(), signals.signal());
  }
  spdlog::info("{} storage namespace \"{}\" at {}", config.dry_run ? "looking for the keys of" : "deleting the keys of",
               util::printable(config.storage_namespace), connection.value().peer());
  const auto report = redis::cleanup_namespace(connection.value(), {config.storage_namespace, config.dry_run, 1000});
  if (!report) {
    return failed(report.error(), signals.signal());
  }
  for (const std::string& line : redis::render_cleanup(report.value(), config.storage_namespace)) {
    std::printf("%s\n", line.c_str());
  }
  return exit_code::ok;
}

}  // namespace launcher
