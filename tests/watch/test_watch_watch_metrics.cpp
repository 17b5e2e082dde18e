// The watches' /metrics families and their /readyz line.
#include <catch2/catch.hpp>

#include "watch/watch_metrics.hpp"

using namespace launcher::watch;

TEST_CASE("watch metrics: nothing when the watches are off; the families when on", "[watch]") {
  WatchSnapshot s;
  CHECK(render_watch_metrics(s).empty());
  s.efa_enabled = true;
  s.efa_state = EfaState::flat;
  s.efa_devices = {{"rdmap0s0", true, 1536.0, 4096}};
  s.ras_enabled = true;
  s.ras_up = true;
  s.ras_polls_ok = 7;
  s.communicators = 3;
  s.communicators_waiting = 1;
  s.communicators_stuck = 1;
  s.stuck_total = 1;
  s.commands_stopped = 1;
  const std::string m = render_watch_metrics(s);
  for (const char* line : {"raylaunch_efa_watch_state{state=\"flat\"} 1\n", "raylaunch_efa_watch_state{state=\"moving\"} 0\n",
                           "raylaunch_efa_device_bytes_per_second{device=\"rdmap0s0\"} 1536.0\n",
                           "raylaunch_efa_device_bytes{device=\"rdmap0s0\"} 4096\n", "raylaunch_nccl_ras_up 1\n",
                           "raylaunch_nccl_ras_polls_total{result=\"ok\"} 7\n",
                           "raylaunch_nccl_communicators{state=\"stuck\"} 1\n", "raylaunch_nccl_stuck_total 1\n",
                           "raylaunch_nccl_stuck_stops_total 1\n", "# TYPE raylaunch_nccl_stuck_total counter\n"}) {
    CHECK(m.find(line) != std::string::npos);
  }
}

TEST_CASE("watch /readyz: a flat fabric fails it only with --efa-idle-readyz", "[watch]") {
  WatchSnapshot s;
  s.efa_enabled = true;
  s.efa_state = EfaState::flat;
  s.efa_line = "no traffic on any of the pod's 4 EFA devices";
  CHECK(watch_not_ready(s).empty());
  s.efa_readyz = true;
  CHECK(watch_not_ready(s) == "not ready: no traffic on any of the pod's 4 EFA devices (RAYLAUNCH_EFA_IDLE_READYZ)");
  s.efa_state = EfaState::moving;
  CHECK(watch_not_ready(s).empty());
}
