#pragma once
#include <memory>
#include <optional>
#include <stop_token>

#include "config/config.hpp"
#include "gcs/gcs_channel.hpp"
#include "plan/plan.hpp"
#include "plan/ray_install.hpp"
#include "redis/tls_client.hpp"
#include "supervisor/lifecycle.hpp"
#include "supervisor/supervisor.hpp"

namespace launcher {

namespace gcs {
class GcsClient;
class HeadWatch;
}  // namespace gcs

// What a worker checks against its head before `ray start`: this image's Ray and Python
// versions (read from its files) against the head's, as Ray's own check_version_info would
// after `ray start` (RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL: how much of Python's must match).
struct VersionPolicy {
  std::optional<InstalledRay> mine;  // nullopt: no check (checks off, or the head itself)
  std::string python_match_level;    // the environment's value, "" when unset
};

// The blocking waits of `run`, each over the GCS client (or Redis), for the supervisor to run
// on its wait thread: the head's own GCS (127.0.0.1:<ray port>), the join barrier (or its
// quorum), a worker's wait for its head and the version check against it, one look at the head
// after a worker's Ray exited, the head watch while a worker's Ray runs, the drain of a
// worker's own node on SIGTERM, the Redis preflight. One wait runs at a time, never two: the
// supervisor starts a wait's thread only once the last one has ended (supervisor.cpp, StartWait).
// So the watch and the drain share one channel to the head without a lock, and the drain reuses
// the node the watch found and the GCS version it learnt.
class RunWaits {
 public:
  // `redis_tls`: the TLS client of the Redis preflight (rediss://), or null.
  RunWaits(const Plan& plan, const Config& config, gcs::Credentials credentials,
           std::shared_ptr<const redis::TlsClient> redis_tls, supervisor::RunState& state, VersionPolicy versions);
  ~RunWaits();

  supervisor::WaitFinished operator()(supervisor::Wait which, std::stop_token stop);

 private:
  supervisor::WaitFinished preflight(std::stop_token stop);
  // A GCS, checked in stages (DNS, TCP, CheckAlive) until it answers: the head's own, or a
  // worker's head.
  supervisor::WaitFinished gcs_answers(supervisor::Wait which, const std::string& what, const net::HostPort& gcs,
                                       std::chrono::milliseconds timeout, std::stop_token stop);
  supervisor::WaitFinished check_versions(std::stop_token stop);
  supervisor::WaitFinished join(std::stop_token stop);
  supervisor::WaitFinished diagnose(std::stop_token stop);
  supervisor::WaitFinished watch(std::stop_token stop);
  supervisor::WaitFinished drain(std::stop_token stop);
  gcs::GcsClient& head_client();

  const Plan& m_plan;
  const Config& m_config;
  gcs::Credentials m_credentials;
  std::shared_ptr<const redis::TlsClient> m_redis_tls;
  supervisor::RunState& m_state;
  VersionPolicy m_versions;
  std::unique_ptr<gcs::GcsClient> m_head;      // the watch's and the drain's channel
  std::unique_ptr<gcs::HeadWatch> m_watch;
  bool m_fabric_checked = false;  // the gang fabric check ran (once per process)
};

}  // namespace launcher
