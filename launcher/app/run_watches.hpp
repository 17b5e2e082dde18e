#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "gcs/gcs_channel.hpp"
#include "supervisor/lifecycle.hpp"
#include "util/env_map.hpp"
#include "watch/watch_metrics.hpp"

namespace launcher {

// What the watches of the command's run do, settled from the settings and the pod's facts.
struct WatchSettings {
  bool efa = false;
  std::vector<std::string> efa_devices;  // the pod's EFA devices (the plan's facts)
  std::string host_root = "/";
  std::chrono::milliseconds efa_idle_after{300'000};
  bool efa_readyz = false;
  bool ras = false;
  bool ras_loud = false;                 // --nccl-ras on: say so when nothing answers
  net::HostPort ras_address{"127.0.0.1", 28028};
  std::chrono::milliseconds ras_interval{30'000};
  int ras_polls = 10;
  OnStuck on_stuck = OnStuck::warn;
  std::string gcs;                       // the head's own GCS (host:port), for the pods of RAS's node IPs
  gcs::Credentials credentials;

  bool any() const { return efa || ras; }
};

// `efa_devices`: the pod's EFA devices; `env`: the command's environment (NCCL_RAS_ADDR). Says in
// the log what it settled when that is not what was asked (--efa-watch on with no devices, an
// NCCL_RAS_ADDR raylaunch cannot dial).
WatchSettings watch_settings(const Config& config, const std::vector<std::string>& efa_devices, const EnvMap& env);

// The watches, on a thread of their own while the command runs (supervisor: StartWatches and
// StopWatches): the EFA counters every few seconds (EfaWatch), NCCL's RAS every --nccl-ras-interval
// (CollectiveWatch). Each run of the command is watched afresh. What they see goes to `board`
// (/metrics, /readyz) and the log; with --nccl-ras-on-stuck stop, a stuck collective asks for the
// command to be stopped (76). A failing watch is said once and never ends the run.
class RunWatches {
 public:
  RunWatches(WatchSettings settings, watch::WatchBoard& board);
  ~RunWatches();
  RunWatches(const RunWatches&) = delete;
  RunWatches& operator=(const RunWatches&) = delete;

  void start(std::function<void(supervisor::StopCommand)> stop_command);
  void stop();  // asks the thread to stop and joins it (within ~100 ms: every wait is stoppable)

 private:
  void run(std::stop_token stop, std::function<void(supervisor::StopCommand)> stop_command);

  WatchSettings m_settings;
  watch::WatchBoard& m_board;
  std::jthread m_thread;
};

}  // namespace launcher
