#include "app/run_waits.hpp"

#include "gcs/gcs_node_source.hpp"
#include "gcs/head_wait.hpp"
#include "gcs/join_barrier.hpp"
#include "redis/redis_wait.hpp"
#include "util/clock.hpp"

namespace launcher {

using supervisor::Wait;
using supervisor::WaitFinished;

namespace {

// A look at the head after a worker's Ray exited takes seconds, not the join timeout.
constexpr std::chrono::milliseconds k_diagnose_timeout{3'000};

}  // namespace

RunWaits::RunWaits(const Plan& plan, const Config& config, gcs::Credentials credentials,
                   std::shared_ptr<const redis::TlsClient> redis_tls, supervisor::RunState& state)
    : m_plan(plan),
      m_config(config),
      m_credentials(std::move(credentials)),
      m_redis_tls(std::move(redis_tls)),
      m_state(state) {}

WaitFinished RunWaits::operator()(Wait which, std::stop_token stop) {
  switch (which) {
    case Wait::preflight:
      return preflight(stop);
    case Wait::local_gcs:
      // `ray start --head` brings the GCS up on every interface; 127.0.0.1 always reaches it.
      return gcs_answers(which, "local GCS", {"127.0.0.1", m_plan.identity.ray_port}, stop);
    case Wait::join:
      return join(stop);
    case Wait::head:
      return gcs_answers(which, "head GCS", {m_plan.identity.head_host, m_plan.identity.head_port}, stop);
    case Wait::diagnose:
      return diagnose(stop);
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
                                   std::stop_token stop) {
  const net::StagedCheck check = gcs::head_gcs_check(gcs, m_credentials);
  util::SteadyClock clock;
  const auto r = gcs::wait_for_head(what + " at " + gcs.text(),
                                    [&](auto timeout, auto s) { return check.attempt(timeout, s); },
                                    net::staged_wait_options(m_config.join_timeout), clock, stop);
  return {which, r.end, r.reason};
}

WaitFinished RunWaits::join(std::stop_token stop) {
  gcs::GcsNodeSource source("127.0.0.1:" + std::to_string(m_plan.identity.ray_port), m_credentials);
  gcs::JoinOptions options;
  options.nodes = m_plan.identity.nodes;
  options.expected_names = m_plan.identity.expected_node_names();
  options.wait.timeout = m_config.join_timeout;
  const auto start = std::chrono::steady_clock::now();
  options.on_answer = [this, start](const gcs::AliveCount& count) {
    m_state.nodes_alive.store(count.distinct_alive());
    m_state.join_wait_ms.store(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
  };
  util::SteadyClock clock;
  const gcs::JoinResult r = gcs::wait_for_nodes(source, options, clock, stop);
  m_state.join_wait_ms.store(r.elapsed.count());
  return {Wait::join, r.end, r.reason};
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
