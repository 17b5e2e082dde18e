#include "health/health_service.hpp"

#include "health/metrics.hpp"
#include "util/parse.hpp"

namespace launcher::health {

using supervisor::Phase;

namespace {

// How long after `ray start` a worker's silent raylet still counts as starting.
constexpr std::chrono::seconds k_raylet_start_window{60};

}  // namespace

HealthService::HealthService(const supervisor::RunState& state, ProbeCache& probes, std::string version)
    : m_state(state), m_probes(probes), m_version(std::move(version)) {}

void HealthService::handle(const std::string& method, const std::string& path, Respond respond) {
  if (method != "GET" && method != "HEAD") {
    respond({405, "text/plain; charset=utf-8", "only GET\n"});
    return;
  }
  if (path == "/livez") {
    livez(std::move(respond));
  } else if (path == "/readyz") {
    readyz(std::move(respond));
  } else if (path == "/metrics") {
    respond({200, k_metrics_content_type, render_metrics(m_state, m_counts, m_version)});
  } else {
    respond({404, "text/plain; charset=utf-8", "not found: try /livez, /readyz or /metrics\n"});
  }
}

void HealthService::answer(const std::string& endpoint, bool healthy, const std::string& line, Respond& respond) {
  ++m_counts[endpoint + (healthy ? " ok" : " fail")];
  respond({healthy ? 200 : 503, "text/plain; charset=utf-8", (healthy ? "ok: " : "") + line + "\n"});
}

void HealthService::livez(Respond respond) {
  const Phase phase = m_state.phase;
  switch (phase) {
    case Phase::starting:
    case Phase::preflight:
    case Phase::waiting_head:
    case Phase::starting_ray:
      // Not started yet, or starting within raylaunch's own deadline: restarting the pod
      // would only start the wait again. The startupProbe covers this phase.
      answer("livez", true, std::string("starting (") + supervisor::to_string(phase) + ")", respond);
      return;
    case Phase::staying:
      answer("livez", true, "the command succeeded; staying up (--on-success stay)", respond);
      return;
    case Phase::draining:
      // Alive while it drains: a liveness kill now would SIGKILL the very work the drain lets end.
      answer("livez", true, "draining: " + m_state.reason, respond);
      return;
    case Phase::restarting:
      answer("livez", true, "the command failed; it runs again once its process group is gone", respond);
      return;
    case Phase::stopping:
    case Phase::done:
      answer("livez", false, "stopping: " + m_state.reason, respond);
      return;
    case Phase::joining:
    case Phase::running_command:
    case Phase::running_ray:
      break;
  }
  m_probes.get(ProbeKind::liveness, [this, respond = std::move(respond)](const ProbeResult& a) mutable {
    // A worker's raylet needs a moment after `ray start` before it listens: not a reason to
    // restart the pod (if Ray fails to come up, `ray start` exits and the run ends anyway).
    const auto since = std::chrono::steady_clock::now() - m_state.ray_started_at;
    if (!a.healthy && !m_state.head && m_state.phase == Phase::running_ray && since < k_raylet_start_window) {
      answer("livez", true, "starting: ray start began " +
                                util::format_elapsed(std::chrono::duration_cast<std::chrono::milliseconds>(since)) +
                                " ago; " + a.line, respond);
      return;
    }
    answer("livez", a.healthy, a.line, respond);
  });
}

void HealthService::readyz(Respond respond) {
  const Phase phase = m_state.phase;
  const bool ray_up = m_state.ray_running || (m_state.ray_started && phase == Phase::staying);
  const bool can_be_ready = m_state.head ? (phase == Phase::starting_ray || phase == Phase::joining ||
                                           phase == Phase::running_command || phase == Phase::staying)
                                         : phase == Phase::running_ray;
  if (!can_be_ready || !ray_up) {
    // Why, the moment it is known: draining after SIGTERM, the head replaced, this node DEAD.
    const bool why = (phase == Phase::draining || phase == Phase::stopping) && !m_state.reason.empty();
    answer("readyz", false,
           std::string("not ready: ") + supervisor::to_string(phase) + (why ? ": " + m_state.reason : ""), respond);
    return;
  }
  m_probes.get(ProbeKind::readiness, [this, respond = std::move(respond)](const ProbeResult& a) mutable {
    answer("readyz", a.healthy, a.line, respond);
  });
}

}  // namespace launcher::health
