#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "app/commands.hpp"
#include "app/process_setup.hpp"
#include "app/targets.hpp"
#include "redis/cleanup.hpp"
#include "redis/redis_wait.hpp"
#include "util/signals.hpp"
#include "util/fatal.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// Each exchange of the cleanup (a SCAN batch, its HLENs and UNLINK) may take this long on a
// busy server before the cleanup gives up with 69 (the Job retries it; what was deleted stays
// deleted). The whole cleanup has --timeout (RAYLAUNCH_JOIN_TIMEOUT) after Redis answered.
constexpr std::chrono::milliseconds k_command_timeout{10'000};
constexpr std::chrono::seconds k_progress_every{1};

// Deleting keys cannot be undone, so the namespace must be named: an empty one names no
// cluster, and Ray's default "default" is shared by every cluster that left it unset.
void require_namespace(const Config& config, const EnvMap& env) {
  if (config.source_of(&Config::storage_namespace) != "default") {
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

// Before any key was touched (connecting, AUTH).
int failed(const redis::RedisError& error, int signal) {
  if (error.kind == redis::RedisError::Kind::stopped) {
    return finish_wait(util::WaitEnd::stopped,
                       "redis-cleanup stopped by " + util::signal_name(signal) + " before anything was deleted", signal);
  }
  return finish_wait(error.will_not_heal() ? util::WaitEnd::refused : util::WaitEnd::unreachable,
                     "redis-cleanup: " + error.detail, signal);
}

// The cleanup ended early: what it deleted was printed; this says why it stopped, and the code
// tells a Job whether a retry can help (NOPERM: 77, never; a stop: 128+N; else 69).
int stopped_early(const redis::RedisError& error, int signal) {
  const std::string again = "; what it deleted stays deleted, and running it again finishes the job";
  if (error.kind == redis::RedisError::Kind::stopped) {
    std::fprintf(stderr, "raylaunch: error: redis-cleanup stopped by %s%s\n", util::signal_name(signal).c_str(),
                 again.c_str());
    return exit_code::killed_by(signal > 0 ? signal : SIGTERM);
  }
  std::fprintf(stderr, "raylaunch: error: redis-cleanup: %s%s\n", error.detail.c_str(), again.c_str());
  return error.kind == redis::RedisError::Kind::auth ? exit_code::no_permission : exit_code::unavailable;
}

}  // namespace

// Waits for Redis as the head's preflight does (same deadline and backoff), then deletes one
// cluster's keys (redis::cleanup_namespace, within --timeout) and prints what it deleted — also
// when it stops early. Exit 0; 64 bad input; 69 Redis unreachable, credentials rejected, an
// error reply mid-way, the server gone, the deadline passed; 77 NOPERM (the ACL user may not: a
// retry cannot help); 128+N on a signal.
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
  redis::CleanupOptions options{config.storage_namespace, config.dry_run, 1000,
                                 std::chrono::steady_clock::now() + config.join_timeout, nullptr};
  auto last_progress = std::chrono::steady_clock::now();
  options.progress = [&](const redis::CleanupReport& so_far) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_progress >= k_progress_every) {
      last_progress = now;
      const auto deleted = std::count_if(so_far.keys.begin(), so_far.keys.end(), [](const redis::FoundKey& k) {
        return k.deleted;
      });
      spdlog::info("{} {} keys so far ({} round trips)", config.dry_run ? "found" : "deleted",
                   config.dry_run ? static_cast<long>(so_far.keys.size()) : static_cast<long>(deleted),
                   so_far.round_trips);
    }
  };
  const redis::CleanupReport report = redis::cleanup_namespace(connection.value(), options);
  for (const std::string& line : redis::render_cleanup(report, config.storage_namespace)) {
    std::printf("%s\n", line.c_str());
  }
  if (report.error) {
    return stopped_early(*report.error, signals.signal());
  }
  return exit_code::ok;
}

}  // namespace launcher
