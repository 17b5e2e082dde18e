#include "health/metrics.hpp"

#include <fmt/format.h>

namespace launcher::health {

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
  family(out, "raylaunch_command_exit_status", "gauge", "The launch command's exit status; -1 before it exits.");
  out += fmt::format("raylaunch_command_exit_status {}\n", state.command_exit_code);
  family(out, "raylaunch_nodes_present", "gauge",
         "Distinct pods ALIVE when the command last started (fewer than expected after a quorum, --min-nodes).");
  out += fmt::format("raylaunch_nodes_present {}\n", state.nodes_present.load());
  family(out, "raylaunch_command_restarts_total", "counter",
         "Times the command ran again in place after a retryable failure (RAYLAUNCH_RESTARTS).");
  out += fmt::format("raylaunch_command_restarts_total {}\n", state.command_restarts);
  family(out, "raylaunch_node_drains_total", "counter",
         "Drains of this worker's node on SIGTERM, by outcome: drained (idle before the deadline), deadline (work "
         "ran until it), not_drained (no row, rejected, failed), unsupported (the GCS has no DrainNode).");
  for (const auto& [outcome, n] : {std::pair{"drained", &state.drains_drained}, {"deadline", &state.drains_deadline},
                                   {"not_drained", &state.drains_not_drained}, {"unsupported", &state.drains_unsupported}}) {
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
  return out;
}

}  // namespace launcher::health
