#include "health/health_service.hpp"

#include <fmt/format.h>

#include "util/parse.hpp"

namespace launcher::health {

using supervisor::Phase;

namespace {

// How long after `ray start` a worker's silent raylet still counts as starting.
constexpr std::chrono::seconds k_raylet_start_window{60};

}  // namespace

HealthService::HealthService(const supervisor::RunState& state, ProbeCache& probes, std::string version,
                             const watch::WatchBoard* watches)
    : m_state(state), m_probes(probes), m_version(std::move(version)), m_watches(watches) {}

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
    respond({200, k_metrics_content_type,
             render_metrics(m_state, m_counts, m_version) +
                 (m_watches != nullptr ? watch::render_watch_metrics(m_watches->get()) : std::string())});
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
  if (const std::string flat = m_watches != nullptr ? watch::watch_not_ready(m_watches->get()) : ""; !flat.empty()) {
    answer("readyz", false, flat, respond);  // --efa-idle-readyz: NCCL on sockets is no ready pod
    return;
  }
  m_probes.get(ProbeKind::readiness, [this, respond = std::move(respond)](const ProbeResult& a) mutable {
    answer("readyz", a.healthy, a.line, respond);
  });
}

namespace {

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string render_metrics(const supervisor::RunState& state, const std::map<std::string, long>& counts,
                           const std::string& version) {
  using supervisor::Phase;
  std::string out;
  family(out, "raylaunch_info", "gauge", "raylaunch's version and this pod's role (always 1).");
  out += fmt::format("raylaunch_info{{version=\"{}\",role=\"{}\"}} 1\n", version, state.head ? "head" : "worker");
  family(out, "raylaunch_phase", "gauge", "The supervisor's phase: 1 for the current one, 0 for the others.");
  for (Phase p : {Phase::starting, Phase::preflight, Phase::waiting_head, Phase::starting_ray, Phase::joining,
                  Phase::running_command, Phase::running_ray, Phase::draining, Phase::restarting, Phase::staying,
                  Phase::stopping, Phase::done}) {
    out += fmt::format("raylaunch_phase{{phase=\"{}\"}} {}\n", supervisor::to_string(p), p == state.phase ? 1 : 0);
  }
  family(out, "raylaunch_nodes_alive", "gauge", "Distinct pods ALIVE in the GCS at the join barrier's last poll.");
  out += fmt::format("raylaunch_nodes_alive {}\n", state.nodes_alive.load());
  family(out, "raylaunch_nodes_expected", "gauge", "Pods the join barrier waits for (RAYLAUNCH_NODES).");
  out += fmt::format("raylaunch_nodes_expected {}\n", state.nodes_wanted);
  family(out, "raylaunch_join_wait_seconds", "gauge", "How long the join barrier took, or has taken so far.");
  out += fmt::format("raylaunch_join_wait_seconds {:.3f}\n", static_cast<double>(state.join_wait_ms.load()) / 1000.0);
  family(out, "raylaunch_ray_up", "gauge", "1 while `ray start` runs.");
  out += fmt::format("raylaunch_ray_up {}\n", state.ray_running ? 1 : 0);
  family(out, "raylaunch_command_exit_status", "gauge", "The exit status of the launch command's last run; -1 while it runs (a rerun too) or before it ran.");
  out += fmt::format("raylaunch_command_exit_status {}\n", state.command_exit_code);
  family(out, "raylaunch_nodes_present", "gauge",
         "Distinct pods ALIVE when the command last started (fewer than expected after a quorum, --min-nodes).");
  out += fmt::format("raylaunch_nodes_present {}\n", state.nodes_present.load());
  family(out, "raylaunch_command_restarts_total", "counter",
         "Times the command ran again in place after a retryable failure (RAYLAUNCH_RESTARTS).");
  out += fmt::format("raylaunch_command_restarts_total {}\n", state.command_restarts);
  family(out, "raylaunch_node_drains_total", "counter",
         "Drains of this worker's node on SIGTERM, by outcome: drained (idle before the deadline), deadline (work "
         "ran until it), not_drained (no row, rejected, failed), unsupported (the GCS has no DrainNode), head_gone (the "
         "head went away during it, without GCS fault tolerance).");
  for (const auto& [outcome, n] : {std::pair{"drained", &state.drains_drained}, {"deadline", &state.drains_deadline},
                                   {"not_drained", &state.drains_not_drained}, {"unsupported", &state.drains_unsupported},
                                   {"head_gone", &state.drains_head_gone}}) {
    out += fmt::format("raylaunch_node_drains_total{{outcome=\"{}\"}} {}\n", outcome, n->load());
  }
  family(out, "raylaunch_head_watch_rpcs_total", "counter",
         "RPCs a worker's watch on its head sent the head's GCS (cluster id and this node's row).");
  out += fmt::format("raylaunch_head_watch_rpcs_total {}\n", state.watch_rpcs.load());
  family(out, "raylaunch_head_watch_bytes_total", "counter",
         "Protobuf payload bytes of the head watch's requests (sent) and replies (received).");
  out += fmt::format("raylaunch_head_watch_bytes_total{{direction=\"sent\"}} {}\n", state.watch_bytes_sent.load());
  out += fmt::format("raylaunch_head_watch_bytes_total{{direction=\"received\"}} {}\n",
                     state.watch_bytes_received.load());
  family(out, "raylaunch_uptime_seconds", "gauge", "Seconds since raylaunch started.");
  out += fmt::format("raylaunch_uptime_seconds {:.3f}\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - state.started_at).count());
  family(out, "raylaunch_probe_requests_total", "counter", "Health endpoint requests answered, by endpoint and result.");
  for (const auto& [key, n] : counts) {
    const auto space = key.find(' ');
    out += fmt::format("raylaunch_probe_requests_total{{endpoint=\"{}\",result=\"{}\"}} {}\n", key.substr(0, space),
                       key.substr(space + 1), n);
  }
  {
    // The head's gang fabric check, once it ran (rendered by gang/fabric_metrics.cpp).
    const std::lock_guard lock(state.fabric_mutex);
    out += state.fabric_metrics;
  }
  return out;
}

}  // namespace launcher::health
