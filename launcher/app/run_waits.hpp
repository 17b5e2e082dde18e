#pragma once
#include <optional>
#include <stop_token>

#include "config/config.hpp"
#include "gcs/gcs_channel.hpp"
#include "plan/plan.hpp"
#include "redis/tls_client.hpp"
#include "supervisor/lifecycle.hpp"
#include "supervisor/run_state.hpp"

namespace launcher {

// The blocking waits of `run`, each over the GCS client (or Redis), for the supervisor to run
// on its wait thread: the head's own GCS (127.0.0.1:<ray port>), the join barrier, a worker's
// wait for its head, one look at the head after a worker's Ray exited, the Redis preflight.
class RunWaits {
 public:
  // `redis_tls`: the TLS client of the Redis preflight (rediss://), or null.
  RunWaits(const Plan& plan, const Config& config, gcs::Credentials credentials,
           std::shared_ptr<const redis::TlsClient> redis_tls, supervisor::RunState& state);

  supervisor::WaitFinished operator()(supervisor::Wait which, std::stop_token stop);

 private:
  supervisor::WaitFinished preflight(std::stop_token stop);
  // A GCS, checked in stages (DNS, TCP, CheckAlive) until it answers: the head's own, or a
  // worker's head.
  supervisor::WaitFinished gcs_answers(supervisor::Wait which, const std::string& what, const net::HostPort& gcs,
                                       std::stop_token stop);
  supervisor::WaitFinished join(std::stop_token stop);
  supervisor::WaitFinished diagnose(std::stop_token stop);

  const Plan& m_plan;
  const Config& m_config;
  gcs::Credentials m_credentials;
  std::shared_ptr<const redis::TlsClient> m_redis_tls;
  supervisor::RunState& m_state;
};

}  // namespace launcher
