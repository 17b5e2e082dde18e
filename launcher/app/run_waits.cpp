#include "app/run_waits.hpp"

#include <spdlog/spdlog.h>

#include "app/fabric_wait.hpp"
#include "gcs/cluster_versions.hpp"
#include "gcs/waits.hpp"
#include "gcs/head_watch.hpp"
#include "gcs/node_drain.hpp"
#include "redis/redis_wait.hpp"
#include "util/clock.hpp"
#include "util/exit_codes.hpp"
#include "util/parse.hpp"
#include "util/platform.hpp"

namespace launcher {

using supervisor::Wait;
using supervisor::WaitFinished;

namespace {

// A look at the head after a worker's Ray exited takes seconds, not the join timeout.
constexpr std::chrono::milliseconds k_diagnose_timeout{3'000};
// The version check's one KV read, after the head's GCS has just answered.
constexpr std::chrono::milliseconds k_versions_timeout{5'000};
// How long a worker waits for its head's cluster metadata to be written, and how often it looks.
constexpr std::chrono::milliseconds k_metadata_wait{30'000};
constexpr std::chrono::milliseconds k_metadata_poll{500};
// Each RPC of the drain: a GCS that stalls costs this much of the grace, not all of it.
constexpr std::chrono::milliseconds k_drain_rpc_timeout{2'000};

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RunWaits::RunWaits(const Plan& plan, const Config& config, gcs::Credentials credentials,
                   std::shared_ptr<const redis::TlsClient> redis_tls, supervisor::RunState& state,
                   VersionPolicy versions)
    : m_plan(plan),
      m_config(config),
      m_credentials(std::move(credentials)),
      m_redis_tls(std::move(redis_tls)),
      m_state(state),
      m_versions(std::move(versions)) {}

RunWaits::~RunWaits() = default;

gcs::GcsClient& RunWaits::head_client() {
  if (!m_head) {
    const net::HostPort head{m_plan.identity.head_host, m_plan.identity.head_port};
    m_head = std::make_unique<gcs::GcsClient>(head.text(), m_credentials);
  }
  return *m_head;
}

WaitFinished RunWaits::operator()(Wait which, std::stop_token stop) {
  switch (which) {
    case Wait::preflight:
      return preflight(stop);
    case Wait::local_gcs:
      // `ray start --head` brings the GCS up on every interface; the loopback always reaches it.
      return gcs_answers(which, "local GCS", {platform::k_loopback, m_plan.identity.ray_port}, m_plan.local_gcs_timeout,
                         stop);
    case Wait::join:
      return join(stop);
    case Wait::head: {
      WaitFinished answered = gcs_answers(which, "head GCS", {m_plan.identity.head_host, m_plan.identity.head_port},
                                          m_config.join_timeout, stop);
      return answered.end == util::WaitEnd::ready ? check_versions(stop) : answered;
    }
    case Wait::diagnose:
      return diagnose(stop);
    case Wait::watch:
      return watch(stop);
    case Wait::drain:
      return drain(stop);
  }
  return {which, util::WaitEnd::ready, ""};
}

WaitFinished RunWaits::preflight(std::stop_token stop) {
  for (const Action& action : m_plan.actions) {
    if (const auto* redis = std::get_if<WaitForRedis>(&action)) {
      util::SteadyClock clock;
      const redis::RedisWaitResult r =
          redis::wait_for_redis({redis->address, {redis->username, m_config.redis_password}, m_redis_tls},
                                net::staged_wait_options(redis->timeout), clock, stop);
      return {Wait::preflight, r.end, r.reason};
    }
  }
  return {Wait::preflight, util::WaitEnd::ready, ""};
}

WaitFinished RunWaits::gcs_answers(Wait which, const std::string& what, const net::HostPort& gcs,
                                   std::chrono::milliseconds timeout, std::stop_token stop) {
  const net::StagedCheck check = gcs::head_gcs_check(gcs, m_credentials);
  util::SteadyClock clock;
  const auto r = gcs::wait_for_head(what + " at " + gcs.text(),
                                    [&](auto attempt_timeout, auto s) { return check.attempt(attempt_timeout, s); },
                                    net::staged_wait_options(timeout), clock, stop);
  return {which, r.end, r.reason};
}

WaitFinished RunWaits::join(std::stop_token stop) {
  gcs::GcsNodeSource source(std::string(platform::k_loopback) + ":" + std::to_string(m_plan.identity.ray_port),
                            m_credentials);
  gcs::JoinOptions options;
  options.nodes = m_plan.identity.nodes;
  options.expected_names = m_plan.identity.expected_node_names();
  options.wait.timeout = m_config.join_timeout;
  options.min_nodes = m_plan.min_nodes.value_or(0);
  options.quorum_grace = m_plan.quorum_grace;
  options.own_name = m_plan.identity.hostname;
  options.own_not_before_ms = static_cast<std::uint64_t>(m_state.ray_started_wall_ms.load());
  const auto start = std::chrono::steady_clock::now();
  options.on_answer = [this, start](const gcs::AliveCount& count) {
    m_state.nodes_alive.store(count.distinct_alive());
    m_state.join_wait_ms.store(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
  };
  util::SteadyClock clock;
  const gcs::JoinResult r = gcs::wait_for_nodes(source, options, clock, stop);
  m_state.join_wait_ms.store(r.elapsed.count());
  WaitFinished done{Wait::join, r.end, r.reason};
  done.nodes = r.last_count.distinct_alive();
  if (r.end == util::WaitEnd::ready) {
    m_state.nodes_present.store(done.nodes);
  }
  if (r.end == util::WaitEnd::ready && m_plan.fabric_check && !m_fabric_checked) {
    // Once per head start, right after the first barrier (a rerun in place has the same gang).
    m_fabric_checked = true;
    gcs::GcsClient local(std::string(platform::k_loopback) + ":" + std::to_string(m_plan.identity.ray_port),
                         m_credentials);
    WaitFinished fabric = head_fabric_check(m_plan, m_config, local, m_state, done.nodes, stop);
    if (fabric.end != util::WaitEnd::ready) {
      return fabric;
    }
  }
  return done;
}

WaitFinished RunWaits::check_versions(std::stop_token stop) {
  const WaitFinished go{Wait::head, util::WaitEnd::ready, ""};
  if (!m_versions.mine) {
    return go;
  }
  const InstalledRay& mine = *m_versions.mine;
  if (mine.ray.empty() && mine.python.empty()) {
    spdlog::warn("this image's Ray and Python versions are unknown ({}): not compared with the head's", mine.source);
    return go;
  }
  // The head's `ray start` writes its versions once its GCS answers (Ray's usage_lib
  // put_cluster_metadata), so a worker can get there first: the key is read again a while.
  util::SteadyClock clock;
  const auto give_up = clock.now() + k_metadata_wait;
  auto head = gcs::read_head_versions(head_client(), k_versions_timeout, stop);
  while (head && head.value().not_written && clock.now() < give_up) {
    if (!clock.sleep_for(k_metadata_poll, stop)) {
      return {Wait::head, util::WaitEnd::stopped, ""};
    }
    head = gcs::read_head_versions(head_client(), k_versions_timeout, stop);
  }
  if (!head) {
    spdlog::warn("the head's versions could not be read ({}): not compared; Ray compares them itself",
                 head.error().describe());
    head_client().reset_channel();
    return go;
  }
  if (!head.value().versions) {
    spdlog::info("{}: this worker's versions are not compared (Ray {} and Python {} here)", head.value().problem,
                 mine.ray.empty() ? "?" : mine.ray, mine.python.empty() ? "?" : mine.python);
    return go;
  }
  const gcs::VersionCheck check =
      gcs::compare_versions(*head.value().versions, {mine.ray, mine.python}, mine.source,
                            gcs::python_match(m_versions.python_match_level));
  if (!check.mismatch) {
    spdlog::log(check.warning ? spdlog::level::warn : spdlog::level::info, "versions: {}", check.line);
    return go;
  }
  if (m_config.checks != ChecksPolicy::strict) {
    spdlog::warn("node check versions: {}", check.line);
    return go;
  }
  WaitFinished refused{Wait::head, util::WaitEnd::refused, "node check versions failed: " + check.line};
  refused.code = exit_code::config;  // a node check under --checks strict, before ray start
  return refused;
}

WaitFinished RunWaits::watch(std::stop_token stop) {
  if (m_plan.fabric_check && !m_fabric_checked) {
    // The worker's part of the gang fabric check, before the watch: Ray runs already.
    m_fabric_checked = true;
    worker_fabric_check(m_plan, m_config, head_client(), stop);
    if (m_config.head_watch.count() == 0 || stop.stop_requested()) {
      return {Wait::watch, util::WaitEnd::stopped, ""};  // no watch: Ray runs on unwatched
    }
  }
  if (!m_watch) {
    m_watch = std::make_unique<gcs::HeadWatch>(head_client(), m_plan.identity.hostname,
                                               static_cast<std::uint64_t>(m_state.ray_started_wall_ms.load()));
  }
  gcs::WatchOptions options;
  options.period = m_config.head_watch;
  options.on_look = [this](const gcs::CallCost& cost) {
    m_state.watch_rpcs.store(cost.rpcs);
    m_state.watch_bytes_sent.store(static_cast<std::int64_t>(cost.bytes_sent));
    m_state.watch_bytes_received.store(static_cast<std::int64_t>(cost.bytes_received));
  };
  util::SteadyClock clock;
  const gcs::WatchEnd end = gcs::watch_head(*m_watch, options, clock, stop);
  if (end.state == gcs::HeadState::unknown) {
    return {Wait::watch, util::WaitEnd::stopped, ""};
  }
  WaitFinished lost{Wait::watch, util::WaitEnd::unreachable, end.reason};
  lost.code = exit_code::unavailable;
  return lost;
}

WaitFinished RunWaits::drain(std::stop_token stop) {
  gcs::DrainOptions options;
  options.node_name = m_plan.identity.hostname;
  options.not_before_ms = static_cast<std::uint64_t>(m_state.ray_started_wall_ms.load());
  if (m_watch) {
    options.known = m_watch->own();
  }
  options.window = m_config.term_grace;
  options.message = "raylaunch: pod " + m_plan.identity.hostname + " received SIGTERM (spot interruption, node drain "
                    "or scale-down); Ray on it stops at the latest " + util::format_duration(options.window) +
                    " later";
  options.now_wall_ms = wall_ms();
  options.rpc_timeout = k_drain_rpc_timeout;
  options.head_may_return = m_config.redis_address.has_value();  // GCS fault tolerance
  util::SteadyClock clock;
  const gcs::DrainResult r = gcs::drain_own_node(head_client(), options, clock, stop);
  switch (r.outcome) {
    case gcs::DrainOutcome::drained:
      m_state.drains_drained.fetch_add(1);
      break;
    case gcs::DrainOutcome::deadline:
      m_state.drains_deadline.fetch_add(1);
      break;
    case gcs::DrainOutcome::not_drained:
      (r.unsupported ? m_state.drains_unsupported : m_state.drains_not_drained).fetch_add(1);
      break;
    case gcs::DrainOutcome::head_gone:
      m_state.drains_head_gone.fetch_add(1);
      break;
  }
  if (r.outcome == gcs::DrainOutcome::not_drained) {
    spdlog::warn("{}: stopping Ray now", r.line);
  } else {
    spdlog::info("{}", r.line);
  }
  WaitFinished done{Wait::drain, util::WaitEnd::ready, r.line};
  done.node_gone = r.outcome == gcs::DrainOutcome::drained;
  return done;
}

WaitFinished RunWaits::diagnose(std::stop_token stop) {
  const net::HostPort head{m_plan.identity.head_host, m_plan.identity.head_port};
  const util::Attempt a = gcs::head_gcs_check(head, m_credentials).attempt(k_diagnose_timeout, stop);
  const std::string who = "head GCS at " + head.text();
  if (a.kind == util::Attempt::Kind::done) {
    return {Wait::diagnose, util::WaitEnd::ready, who + " still answers: a Ray process of this pod died"};
  }
  return {Wait::diagnose, util::WaitEnd::unreachable,
          who + " is gone (" + a.line +
              "): a raylet exits when its head stays unreachable for gcs_rpc_server_reconnect_timeout_s"};
}

}  // namespace launcher
