// Benchmark driver (not a test): what ONE pod asks a real GCS, back to back, and the GCS's CPU
// meanwhile (utime + stime of /proc/GCS_PID/stat, every thread), in windows of wall time that
// alternate with windows at rest (scale_windows.hpp). The caller (gcs_scale_bench.py) takes the
// GCS's rate at rest off and scales by each ask's real cadence.
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
// Also `count` (one GetAllNodeInfo: rows ALIVE).
// --duty F: after each call, pause (1-F)/F of the call's time, so the GCS is never kept busy by
// this pod alone (F = 1: back to back). A GCS kept saturated may fall behind on its own periodic
// work, which would then be missing from the rate at rest the caller takes off.
//   gcs_scale_client MODE GCS_HOST:PORT [--gcs-pid P --window-s S --windows W | --calls C]
//                    [--duty F] [--node NAME] [--node-id HEX] [--raylet IP:PORT] [--expect N]
// Prints one JSON object.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>

#include "gcs/gcs_client.hpp"
#include "gcs/head_watch.hpp"
#include "gcs/probe.hpp"
#include "gcs/waits.hpp"
#include "ray_gcs.grpc.pb.h"
#include "scale_windows.hpp"

namespace {

struct Args {
  std::string mode;
  std::string gcs;
  scale::WindowPlan plan;
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
      a.plan.gcs_pid = std::stoi(value);
    } else if (flag == "--window-s") {
      a.plan.window_s = std::stod(value);
    } else if (flag == "--windows") {
      a.plan.windows = std::stoi(value);
    } else if (flag == "--duty") {
      a.duty = std::stod(value);
    } else if (flag == "--calls") {
      a.plan.calls = std::stol(value);
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

int run_barrier(const Args& a) {
  scale::FastForwardClock clock(a.duty);
  scale::Sampler sampler(a.plan, clock, [&clock](scale::Duration d) { clock.rest(d); });
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
  sampler.begin();
  const launcher::gcs::JoinResult r = launcher::gcs::wait_for_nodes(source, options, clock, stop.get_token());
  std::printf("{\"mode\": \"barrier\", %s, \"alive\": %d, \"polls\": %d, \"light_polls\": %d}\n",
              sampler.json().c_str(), alive, r.polls, r.light_polls);
  return r.answered ? 0 : 1;
}

// Calls `one` until the sampler says the run is over, at the duty cycle `duty`.
void repeat(scale::Sampler& sampler, double duty, const std::function<bool()>& one) {
  sampler.begin();
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = one();
    std::this_thread::sleep_for(scale::pause_after(std::chrono::steady_clock::now() - t0, duty));
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
  if (a.mode == "barrier") {
    return run_barrier(a);
  }
  launcher::util::SteadyClock steady;
  scale::Sampler sampler(a.plan, steady, [](scale::Duration d) { std::this_thread::sleep_for(d); });
  std::string extra;
  std::string last;
  if (a.mode == "count") {
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
  std::printf("{\"mode\": \"%s\", %s%s, \"last\": %s}\n", a.mode.c_str(), sampler.json().c_str(), extra.c_str(),
              quoted(last).c_str());
  return 0;
}
