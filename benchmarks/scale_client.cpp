// Benchmark driver (not a test): what ONE pod asks a real GCS, back to back, and the GCS's CPU
// meanwhile (utime + stime of /proc/GCS_PID/stat, every thread), in windows of wall time. The
// caller (gcs_scale_bench.py) takes the GCS's idle rate off and scales by each ask's real cadence.
// raylaunch's asks run through raylaunch's own code, so a rebuilt driver measures whatever the
// branch does:
//   barrier      gcs::wait_for_nodes over a GcsNodeSource waiting for more nodes than exist, on a
//                clock that skips its sleeps but not the replies' time (the pacing, its stretching
//                for slow replies and the mix of light and named polls are production's);
//   readiness    gcs::Prober, a worker's readiness as the resident /readyz asks it;
//   watch        gcs::HeadWatch::check, one look of a worker's head watch;
//   head-probe   gcs::Prober, the head's readiness (liveness asks the same);
// and what KubeRay's probes make Ray's dashboard agent ask (healthz_agent.py, reporter/utils.py
// HealthChecker of Ray 2.40 and 2.60: CheckAlive with this node, 0.1 s timeout; the head's probe
// also CheckAlive([]) through /api/gcs_healthz or /api/healthz):
//   kuberay-worker  CheckAlive{this raylet's "ip:port"} (Ray <= 2.48) or {its node id} (2.49+);
//   kuberay-head    that, then CheckAlive{} (an empty request).
// Also `idle` (no calls: the GCS's own rate) and `count` (one GetAllNodeInfo: rows ALIVE).
// --duty F: after each call, pause (1-F)/F of the call's time, so the GCS is never kept busy by
// this pod alone (F = 1: back to back). A GCS kept saturated may fall behind on its own periodic
// work, which would then be missing from the idle rate the caller takes off.
//   gcs_scale_client MODE GCS_HOST:PORT [--gcs-pid P --window-s S --windows W | --calls C]
//                    [--duty F] [--node NAME] [--node-id HEX] [--raylet IP:PORT] [--expect N]
// Prints one JSON object.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "gcs/gcs_client.hpp"
#include "gcs/head_watch.hpp"
#include "gcs/probe.hpp"
#include "gcs/waits.hpp"
#include "ray_gcs.grpc.pb.h"

namespace {

using Ms = std::chrono::duration<double, std::milli>;

struct Args {
  std::string mode;
  std::string gcs;
  int gcs_pid = 0;
  double window_s = 2;
  int windows = 5;
  long calls = 0;  // > 0: exactly this many calls, no windows (the bytes phase)
  double duty = 1;
  std::string node = "training-1";
  std::string node_id_hex;
  std::string raylet;
  int expect = 0;
};

Args parse(int argc, char** argv) {
  Args a;
  a.mode = argv[1];
  a.gcs = argv[2];
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--gcs-pid") {
      a.gcs_pid = std::stoi(value);
    } else if (flag == "--window-s") {
      a.window_s = std::stod(value);
    } else if (flag == "--windows") {
      a.windows = std::stoi(value);
    } else if (flag == "--duty") {
      a.duty = std::stod(value);
    } else if (flag == "--calls") {
      a.calls = std::stol(value);
    } else if (flag == "--node") {
      a.node = value;
    } else if (flag == "--node-id") {
      a.node_id_hex = value;
    } else if (flag == "--raylet") {
      a.raylet = value;
    } else if (flag == "--expect") {
      a.expect = std::stoi(value);
    } else {
      throw std::runtime_error("unknown flag " + flag);
    }
  }
  return a;
}

// CPU time of every thread of `pid` so far, in ms (clock ticks: 10 ms resolution).
double process_cpu_ms(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(f, text);  // one line
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string s; rest >> s;) {
    fields.push_back(s);
  }
  // After "(comm)": state is field 3 of stat(5), utime 14 and stime 15, i.e. [11] and [12] here.
  return static_cast<double>(std::stol(fields.at(11)) + std::stol(fields.at(12))) * 1000.0 /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The pause after a call that took `busy`, for a duty cycle of `duty`.
std::chrono::steady_clock::duration pause_after(std::chrono::steady_clock::duration busy, double duty) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(busy * ((1 - duty) / duty));
}

// A clock whose sleeps are skipped but count: now() is real time plus what the sleeps skipped, so
// a wait loop keeps its production pacing (and sees its replies' real time) while it runs back to
// back. With a duty cycle below 1 a sleep really pauses, as long as the duty cycle asks (never
// longer than the sleep); either way now() moves by exactly the sleep.
class FastForwardClock final : public launcher::util::Clock {
 public:
  explicit FastForwardClock(double duty) : m_duty(duty) {}
  TimePoint now() override { return std::chrono::steady_clock::now() + m_skipped; }
  bool sleep_for(std::chrono::milliseconds d, std::stop_token stop) override {
    const auto real = std::min<std::chrono::steady_clock::duration>(
        d, pause_after(std::chrono::steady_clock::now() - m_woke, m_duty));
    std::this_thread::sleep_for(real);
    m_skipped += d - real;
    m_woke = std::chrono::steady_clock::now();
    return !stop.stop_requested();
  }

 private:
  double m_duty;
  std::chrono::steady_clock::time_point m_woke = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration m_skipped{0};
};

// Splits a run into windows of wall time and records what the GCS spent in each.
class Sampler {
 public:
  Sampler(const Args& a, launcher::util::Clock& clock) : m_args(a), m_clock(clock) { start(); }

  // After every call; true when the run is over.
  bool tick(bool ok) {
    ++m_calls;
    ++m_total;
    m_errors += ok ? 0 : 1;
    if (m_args.calls > 0) {
      return m_total >= m_args.calls;
    }
    const double wall = Ms(std::chrono::steady_clock::now() - m_wall0).count();
    if (wall < m_args.window_s * 1000) {
      return false;
    }
    m_windows.push_back({m_calls, wall, Ms(m_clock.now() - m_sim0).count(), cpu() - m_cpu0});
    start();
    return static_cast<int>(m_windows.size()) >= m_args.windows;
  }

  std::string json(const std::string& extra) const {
    std::string w;
    for (const Window& x : m_windows) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s{\"calls\": %ld, \"wall_ms\": %.1f, \"sim_ms\": %.1f, \"gcs_cpu_ms\": %.1f}",
                    w.empty() ? "" : ", ", x.calls, x.wall_ms, x.sim_ms, x.gcs_cpu_ms);
      w += buf;
    }
    return "{\"mode\": \"" + m_args.mode + "\", \"calls\": " + std::to_string(m_total) +
           ", \"errors\": " + std::to_string(m_errors) + ", \"windows\": [" + w + "]" + extra + "}";
  }

 private:
  struct Window {
    long calls;
    double wall_ms;
    double sim_ms;
    double gcs_cpu_ms;
  };
  double cpu() const { return m_args.gcs_pid > 0 ? process_cpu_ms(m_args.gcs_pid) : 0.0; }
  void start() {
    m_calls = 0;
    m_wall0 = std::chrono::steady_clock::now();
    m_sim0 = m_clock.now();
    m_cpu0 = cpu();
  }

  const Args& m_args;
  launcher::util::Clock& m_clock;
  std::vector<Window> m_windows;
  long m_calls = 0;
  long m_total = 0;
  long m_errors = 0;
  std::chrono::steady_clock::time_point m_wall0;
  launcher::util::Clock::TimePoint m_sim0;
  double m_cpu0 = 0;
};

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  return out + "\"";
}

int run_barrier(const Args& a, std::string& extra) {
  FastForwardClock clock(a.duty);
  Sampler sampler(a, clock);
  launcher::gcs::GcsNodeSource source(a.gcs, {});
  launcher::gcs::JoinOptions options;
  options.nodes = a.expect;  // more than registered: the barrier never ends by itself
  options.wait.timeout = std::chrono::hours(1000);
  std::stop_source stop;
  int alive = 0;
  options.on_answer = [&](const launcher::gcs::AliveCount& c) {
    alive = c.distinct_alive();
    if (sampler.tick(true)) {
      stop.request_stop();
    }
  };
  const launcher::gcs::JoinResult r = launcher::gcs::wait_for_nodes(source, options, clock, stop.get_token());
  extra = ", \"alive\": " + std::to_string(alive) + ", \"polls\": " + std::to_string(r.polls) +
          ", \"light_polls\": " + std::to_string(r.light_polls) + ", \"samples\": " + sampler.json("");
  return r.answered ? 0 : 1;
}

// Calls `one` until the sampler says the run is over, at the duty cycle `duty`.
void repeat(Sampler& sampler, double duty, const std::function<bool()>& one) {
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = one();
    std::this_thread::sleep_for(pause_after(std::chrono::steady_clock::now() - t0, duty));
    if (sampler.tick(ok)) {
      return;
    }
  }
}

launcher::gcs::ProbeTarget probe_target(const Args& a, bool head) {
  launcher::gcs::ProbeTarget t;
  t.head = head;
  t.node_name = a.node;
  t.head_address = a.gcs;
  t.ray_port = std::stoi(a.gcs.substr(a.gcs.rfind(':') + 1));
  t.timeout = std::chrono::seconds(10);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gcs_scale_client MODE GCS_HOST:PORT [options] (see the source's header)\n");
    return 2;
  }
  const Args a = parse(argc, argv);
  launcher::util::SteadyClock steady;
  std::string extra;
  std::string last;
  Sampler sampler(a, steady);
  if (a.mode == "barrier") {
    const int rc = run_barrier(a, extra);
    std::printf("{\"mode\": \"barrier\"%s}\n", extra.c_str());
    return rc;
  }
  if (a.mode == "idle") {
    repeat(sampler, a.duty, [] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return true;
    });
  } else if (a.mode == "count") {
    launcher::gcs::GcsClient client(a.gcs, {});
    const auto t = client.get_all_node_info(std::chrono::seconds(60));
    if (!t) {
      std::fprintf(stderr, "count: %s\n", t.error().describe().c_str());
      return 1;
    }
    const auto c = launcher::gcs::count_alive(t.value(), {});
    std::printf("{\"mode\": \"count\", \"rows\": %zu, \"alive\": %d}\n", t.value().nodes.size(), c.distinct_alive());
    return 0;
  } else if (a.mode == "readiness" || a.mode == "head-probe") {
    launcher::gcs::Prober prober(probe_target(a, a.mode == "head-probe"), {});
    repeat(sampler, a.duty, [&] {
      const launcher::ProbeResult r = prober.probe(launcher::ProbeKind::readiness);
      last = r.line;
      return r.healthy;
    });
  } else if (a.mode == "watch") {
    launcher::gcs::GcsClient client(a.gcs, {});
    launcher::gcs::HeadWatch watch(client, a.node, 0);
    repeat(sampler, a.duty, [&] {
      const launcher::gcs::HeadCheck c = watch.check(std::chrono::seconds(2), {});
      last = c.line;
      return c.state == launcher::gcs::HeadState::ok;
    });
    const auto& cost = watch.cost();
    extra = ", \"rpcs\": " + std::to_string(cost.rpcs) + ", \"payload_received\": " +
            std::to_string(cost.bytes_received);
  } else if (a.mode == "kuberay-worker" || a.mode == "kuberay-head") {
    launcher::gcs::GcsClient client(a.gcs, {});
    const auto version = client.check_alive(std::chrono::seconds(10));
    if (!version) {
      std::fprintf(stderr, "%s: %s\n", a.mode.c_str(), version.error().describe().c_str());
      return 1;
    }
    // Ray 2.49 changed CheckAliveRequest field 1 from raylet addresses to node ids (#54929).
    const bool by_id = client.version() && client.version()->at_least(2, 49);
    const std::string who = by_id ? from_hex(a.node_id_hex) : a.raylet;
    auto stub = ray::rpc::NodeInfoGcsService::NewStub(client.channel());
    auto check_alive = [&](const std::string* node) {
      ray::rpc::CheckAliveRequest request;
      if (node != nullptr) {
        request.add_node_ids(*node);
      }
      ray::rpc::CheckAliveReply reply;
      grpc::ClientContext context;
      // The agent's own timeout is 0.1 s; a longer one here only keeps a slow answer counted.
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
      const grpc::Status s = stub->CheckAlive(&context, request, &reply);
      return s.ok() && reply.status().code() == 0 && (node == nullptr || (reply.raylet_alive_size() == 1 &&
                                                                          reply.raylet_alive(0)));
    };
    const bool head = a.mode == "kuberay-head";
    repeat(sampler, a.duty, [&] {
      const bool raylet_ok = check_alive(&who);
      return head ? check_alive(nullptr) && raylet_ok : raylet_ok;
    });
    extra = std::string(", \"asked_by\": \"") + (by_id ? "node id" : "raylet address") + "\"";
  } else {
    std::fprintf(stderr, "unknown mode %s\n", a.mode.c_str());
    return 2;
  }
  std::printf("%s\n", sampler.json(extra + ", \"last\": " + quoted(last)).c_str());
  return 0;
}
