#pragma once
#include <map>
#include <string>

#include "health/http_server.hpp"
#include "health/probe_cache.hpp"
#include "supervisor/supervisor.hpp"
#include "watch/watch_metrics.hpp"

namespace launcher::health {

// The answers of /livez, /readyz and /metrics, from the supervisor's state and, where the
// phase calls for it, one probe RPC (through the ProbeCache). Role-aware as `raylaunch probe`:
//   /livez   head: 200 while Ray starts and the barrier runs its course, then "its GCS
//            answers"; worker: 200 while waiting for the head, then "its own raylet answers"
//            (a dead head does not fail it: restarting workers does not bring a head back);
//            after the command succeeded with --on-success stay: 200; stopping: 503.
//   /readyz  head: its GCS answers; worker: this pod is ALIVE in the head's node table.
//   /metrics Prometheus text format (render_metrics, below), and the watches' (watch/watch_metrics).
// `watches` (may be null): what the watches of the command's run saw; with --efa-idle-readyz a
// flat fabric fails /readyz.
class HealthService {
 public:
  HealthService(const supervisor::RunState& state, ProbeCache& probes, std::string version,
                const watch::WatchBoard* watches = nullptr);

  // The Router for HttpServer.
  void handle(const std::string& method, const std::string& path, Respond respond);

 private:
  void livez(Respond respond);
  void readyz(Respond respond);
  void answer(const std::string& endpoint, bool healthy, const std::string& line, Respond& respond);

  const supervisor::RunState& m_state;
  ProbeCache& m_probes;
  std::string m_version;
  const watch::WatchBoard* m_watches;
  std::map<std::string, long> m_counts;  // "livez ok" → requests answered so
};

// The Prometheus text exposition (format 0.0.4: one # HELP and # TYPE per family, snake_case
// names with unit suffixes): the phase, nodes alive and expected, the join wait, Ray's exits,
// the command's exit status, and the probe requests answered (`counts`: "livez ok" → n).
// Nothing secret is ever in it.
std::string render_metrics(const supervisor::RunState& state, const std::map<std::string, long>& counts,
                           const std::string& version);

inline constexpr const char* k_metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace launcher::health
