#include "watch/watch_metrics.hpp"

#include <fmt/format.h>

#include "util/strings.hpp"

namespace launcher::watch {

namespace {

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

// A label value as Prometheus reads it: backslash, quote and newline escaped.
std::string label(std::string_view v) {
  std::string out;
  for (char c : util::printable(v, 64)) {
    if (c == '\\' || c == '"') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string render_watch_metrics(const WatchSnapshot& s) {
  std::string out;
  if (s.efa_enabled) {
    family(out, "raylaunch_efa_watch_state", "gauge",
           "The EFA watch's verdict while the command runs: 1 for the current one (flat: no EFA traffic for "
           "--efa-idle-after, NCCL likely on sockets).");
    for (EfaState st : {EfaState::waiting, EfaState::moving, EfaState::flat, EfaState::unreadable}) {
      out += fmt::format("raylaunch_efa_watch_state{{state=\"{}\"}} {}\n", to_string(st), st == s.efa_state ? 1 : 0);
    }
    family(out, "raylaunch_efa_device_bytes_per_second", "gauge",
           "Bytes per second through each of the pod's EFA devices at the last sample (hw_counters tx, rx, send and "
           "recv bytes).");
    for (const EfaDeviceRate& d : s.efa_devices) {
      out += fmt::format("raylaunch_efa_device_bytes_per_second{{device=\"{}\"}} {:.1f}\n", label(d.device),
                         d.bytes_per_second);
    }
    family(out, "raylaunch_efa_device_bytes", "gauge",
           "The sum of each EFA device's tx, rx, send and recv byte counters at the last sample.");
    for (const EfaDeviceRate& d : s.efa_devices) {
      out += fmt::format("raylaunch_efa_device_bytes{{device=\"{}\"}} {}\n", label(d.device), d.total_bytes);
    }
  }
  if (s.ras_enabled) {
    family(out, "raylaunch_nccl_ras_up", "gauge", "1 when the last poll of NCCL's RAS was answered and understood.");
    out += fmt::format("raylaunch_nccl_ras_up {}\n", s.ras_up ? 1 : 0);
    family(out, "raylaunch_nccl_ras_polls_total", "counter", "Polls of NCCL's RAS, by result.");
    out += fmt::format("raylaunch_nccl_ras_polls_total{{result=\"ok\"}} {}\n", s.ras_polls_ok);
    out += fmt::format("raylaunch_nccl_ras_polls_total{{result=\"failed\"}} {}\n", s.ras_polls_failed);
    family(out, "raylaunch_nccl_ras_poll_seconds", "gauge", "How long the last RAS poll took (NCCL gathers the whole job's state).");
    out += fmt::format("raylaunch_nccl_ras_poll_seconds {:.3f}\n", s.ras_poll_seconds);
    family(out, "raylaunch_nccl_communicators", "gauge",
           "NCCL communicators in the last RAS dump, by state: all, waiting (ranks disagree on their operation "
           "counts, or some sent no data), stuck (waiting unchanged across --nccl-ras-polls polls).");
    out += fmt::format("raylaunch_nccl_communicators{{state=\"all\"}} {}\n", s.communicators);
    out += fmt::format("raylaunch_nccl_communicators{{state=\"waiting\"}} {}\n", s.communicators_waiting);
    out += fmt::format("raylaunch_nccl_communicators{{state=\"stuck\"}} {}\n", s.communicators_stuck);
    family(out, "raylaunch_nccl_stuck_total", "counter", "Stuck NCCL communicators found while the command ran.");
    out += fmt::format("raylaunch_nccl_stuck_total {}\n", s.stuck_total);
    family(out, "raylaunch_nccl_stuck_stops_total", "counter",
           "Runs of the command stopped (76) for a stuck communicator (--nccl-ras-on-stuck stop).");
    out += fmt::format("raylaunch_nccl_stuck_stops_total {}\n", s.commands_stopped);
  }
  return out;
}

std::string watch_not_ready(const WatchSnapshot& s) {
  if (s.efa_enabled && s.efa_readyz && s.efa_state == EfaState::flat) {
    return "not ready: " + (s.efa_line.empty() ? std::string("no EFA traffic") : s.efa_line) +
           " (RAYLAUNCH_EFA_IDLE_READYZ)";
  }
  return {};
}

}  // namespace launcher::watch
