#include "app/fabric_wait.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "gang/fabric_metrics.hpp"
#include "gang/fabric_round.hpp"
#include "gang/fabric_verdict.hpp"
#include "gang/pod_test.hpp"
#include "gcs/cluster_rpcs.hpp"
#include "gcs/gcs_client.hpp"
#include "gcs/node_table.hpp"
#include "util/exit_codes.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

using supervisor::Wait;
using supervisor::WaitFinished;

namespace {

// Each KV call of the check: a GCS that stalls costs this much of the bound, not all of it.
constexpr std::chrono::milliseconds k_rpc_timeout{2'000};

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What this pod brings: the tool, its address, the cluster's id (the keys' namespace).
// nullopt when the cluster id cannot be read (the check cannot meet its peers).
std::optional<gang::RoundSpec> round_spec(const Plan& plan, const Config& config, gcs::GcsClient& gcs,
                                          std::stop_token stop) {
  const FabricCheckPlan& f = *plan.fabric_check;
  const auto cluster = gcs::get_cluster_id(gcs, k_rpc_timeout, stop);
  if (!cluster) {
    spdlog::warn("fabric check: the cluster id could not be read ({}): no check", cluster.error().describe());
    return std::nullopt;
  }
  gang::RoundSpec spec;
  spec.cluster = gcs::to_hex(cluster.value());
  spec.ordinal = plan.identity.ordinal;
  spec.nodes = plan.identity.nodes;
  spec.pods = plan.identity.expected_node_names();
  const char* path = std::getenv("PATH");  // the plan's PATH, a venv's bin first (apply_environment)
  const auto tool = gang::find_pingpong(f.pingpong, path != nullptr ? path : "");
  if (tool) {
    spec.exe = tool.value();
  } else {
    spec.tool_problem = tool.error();
  }
  spec.provider = f.provider;
  spec.port = gang::k_pingpong_port;
  const auto address = gang::own_address(plan.identity.head_host, k_rpc_timeout, stop);
  if (address) {
    spec.address = address.value();
  } else {
    spec.address_problem = address.error();
  }
  spec.device = f.device;
  spec.timeout = f.timeout;
  spec.go_wait = config.join_timeout;
  return spec;
}

}  // namespace

WaitFinished head_fabric_check(const Plan& plan, const Config& config, gcs::GcsClient& gcs,
                               supervisor::RunState& state, int present, std::stop_token stop) {
  const WaitFinished go{Wait::join, util::WaitEnd::ready, ""};
  const auto started = std::chrono::steady_clock::now();
  auto spec = round_spec(plan, config, gcs, stop);
  if (!spec) {
    return go;
  }
  if (present < spec->nodes) {
    // A ring needs every pod: a quorum's absent ones would only read as silent peers.
    spdlog::warn("fabric check skipped: the barrier passed with {} of {} pods (--min-nodes)", present, spec->nodes);
    gang::GcsKv kv(gcs, k_rpc_timeout, stop);
    gang::skip_round(kv, *spec);
    return go;
  }
  spec->round = std::to_string(wall_ms());
  const FabricCheckPlan& f = *plan.fabric_check;
  spdlog::info("fabric check: {} pods, provider {}, up to {}", spec->nodes, f.provider,
               util::format_duration(f.timeout));
  gang::GcsKv kv(gcs, k_rpc_timeout, stop);
  const std::vector<gang::LinkReport> reports = gang::head_round(kv, *spec, stop);
  if (stop.stop_requested()) {
    return {Wait::join, util::WaitEnd::stopped, ""};
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  const gang::VerdictInputs in{spec->pods, f.provider, static_cast<double>(f.min_bandwidth), f.min_bandwidth_source};
  const gang::FabricVerdict verdict = gang::judge_fabric(reports, in);
  {
    const std::lock_guard lock(state.fabric_mutex);
    state.fabric_metrics = gang::render_fabric_metrics(reports, in, verdict, took);
  }
  const std::string floor = f.min_bandwidth > 0 ? "floor " + gang::format_rate(static_cast<double>(f.min_bandwidth)) +
                                                      " from " + f.min_bandwidth_source
                                                : "no floor: " + f.min_bandwidth_source;
  const std::string table = "fabric check (" + f.provider + ", " +
                            util::plural(static_cast<long>(reports.size()), "link") + ", " + floor + ", " +
                            util::format_elapsed(took) + "):";
  spdlog::info("{}", table);
  for (const std::string& row : verdict.table) {
    spdlog::info("{}", row);  // one log line a row: a log line holds no newline
  }
  if (!verdict.failed) {
    spdlog::info("fabric check passed: every link at or above the floor");
    return go;
  }
  if (config.checks != ChecksPolicy::strict) {
    for (const std::string& p : verdict.problems) {
      spdlog::warn("{}", p);
    }
    return go;
  }
  for (std::size_t i = 1; i < verdict.problems.size(); ++i) {
    spdlog::error("{}", verdict.problems[i]);
  }
  WaitFinished refused{Wait::join, util::WaitEnd::refused,
                       "node check fabric failed: " + verdict.problems.front() +
                           (verdict.problems.size() > 1 ? " (and " + std::to_string(verdict.problems.size() - 1) +
                                                              " more in the log)"
                                                        : "")};
  refused.code = exit_code::config;  // a check under --checks strict: the command never starts
  return refused;
}

void worker_fabric_check(const Plan& plan, const Config& config, gcs::GcsClient& head, std::stop_token stop) {
  auto spec = round_spec(plan, config, head, stop);
  if (!spec) {
    return;
  }
  if (!spec->tool_problem.empty()) {
    spdlog::warn("fabric check: {}", spec->tool_problem);
  }
  gang::GcsKv kv(head, k_rpc_timeout, stop);
  const std::string line = gang::worker_round(kv, *spec, stop);
  spdlog::info("fabric check: {}", line);
}

}  // namespace launcher
