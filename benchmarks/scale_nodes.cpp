// Benchmark load generator (not a test, and not what is measured): N Ray nodes as a real
// `gcs_server` sees them, from one process. It registers N rows with
// NodeInfoGcsService.RegisterNode (as each raylet does at start, raylet/main.cc) and answers,
// for all of them on one port, the two things the GCS asks every raylet, so the real GCS keeps
// every row ALIVE and does its usual per-node work for as long as this runs:
// - Ray's GcsHealthCheckManager calls grpc.health.v1.Health/Check{service: "<node id hex>"} on
//   each row's node_manager_address:node_manager_port every 3 s after a 5 s delay, and marks the
//   node DEAD after 5 failures (ray_config_def.h health_check_*, ray-2.9 … 2.60; ray-gcs-wire.md §3);
// - the GCS pulls NodeManagerService.GetResourceLoad from each raylet every second (its log says
//   "Failed to get the resource load" when a raylet does not answer); the answer is an idle
//   node's: its resources all available, no load (proto/scale_raylet.proto);
// - every row has an address of its own on loopback (127.20.x.y: all of 127/8 is local on Linux,
//   so one socket on 0.0.0.0:PORT receives them all) and the same port: one TCP connection from the
//   GCS per node, as in a cluster of pods.
// Rows are filled as a p4de pod's raylet fills its own (the fields of ray-gcs-wire.md §2.5), so a
// reply's bytes per node are a real cluster's. It does not open the raylet's resource-report
// stream (ray_syncer) or run workers: the GCS's own background work per node is less than in a
// real cluster of that size, never more.
//   gcs_scale_nodes GCS_HOST:PORT NODES HEALTH_PORT STATE_FILE NODES_FILE
// NODES_FILE gets "name node_id_hex ip:port" per node once all are registered; STATE_FILE is
// rewritten every second: "registered=R checks=C checked_nodes=K load_pulls=L". Runs until
// SIGTERM or SIGINT.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fake_health.grpc.pb.h"
#include "fake_ray_gcs.grpc.pb.h"
#include "scale_raylet.grpc.pb.h"

namespace {

constexpr int k_node_id_bytes = 28;  // kUniqueIDSize (src/ray/common/id.h)

struct Node {
  std::string name;
  std::string id;  // binary
  std::string id_hex;
  std::string ip;
};

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<Node> make_nodes(int count) {
  std::mt19937_64 rng(std::random_device{}());
  std::vector<Node> nodes(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Node& n = nodes[static_cast<std::size_t>(i)];
    n.name = "training-" + std::to_string(i);
    n.id.resize(k_node_id_bytes);
    for (char& c : n.id) {
      c = static_cast<char>(rng() & 0xff);
    }
    n.id_hex = to_hex(n.id);
    n.ip = "127.20." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
  }
  return nodes;
}

// What a p4de pod's raylet detects and reports; node 0 is the head.
std::map<std::string, double> resources_of(const Node& n, bool head) {
  std::map<std::string, double> r{{"CPU", 96},
                                  {"GPU", 8},
                                  {"memory", 1.1e12},
                                  {"object_store_memory", 2e11},
                                  {"accelerator_type:A100", 1},
                                  {"node:" + n.ip, 1}};
  if (head) {
    r["node:__internal_head__"] = 1;
  }
  return r;
}

// What such a raylet registers (raylet/main.cc fills GcsNodeInfo from its own flags and what it
// detected).
ray::rpc::GcsNodeInfo row_of(const Node& n, int port, bool head) {
  ray::rpc::GcsNodeInfo r;
  const std::string session = "/tmp/ray/session_2026-12-02_03-00-00_000000_1";
  r.set_node_id(n.id);
  r.set_node_manager_address(n.ip);
  r.set_raylet_socket_name(session + "/sockets/raylet");
  r.set_object_store_socket_name(session + "/sockets/plasma_store");
  r.set_node_manager_port(port);
  r.set_object_manager_port(8076);
  r.set_state(ray::rpc::GcsNodeInfo::ALIVE);
  r.set_node_manager_hostname(n.name);
  r.set_metrics_export_port(8080);
  for (const auto& [name, quantity] : resources_of(n, head)) {
    (*r.mutable_resources_total())[name] = quantity;
  }
  r.set_node_name(n.name);
  r.set_start_time_ms(static_cast<std::uint64_t>(wall_ms()));
  r.set_is_head_node(head);
  (*r.mutable_labels())["ray.io/node_id"] = n.id_hex;
  r.set_runtime_env_agent_port(52365);
  r.mutable_state_snapshot()->set_state(ray::rpc::NodeSnapshot::IDLE);
  return r;
}

// Answers SERVING for the nodes it registered, as each raylet does for its own id
// (raylet/node_manager.cc), and counts which nodes the GCS has checked.
class HealthService final : public grpc::health::v1::Health::Service {
 public:
  explicit HealthService(const std::vector<Node>& nodes) : m_checked(nodes.size()) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      m_index.emplace(nodes[i].id_hex, i);
    }
  }

  grpc::Status Check(grpc::ServerContext*, const grpc::health::v1::HealthCheckRequest* request,
                     grpc::health::v1::HealthCheckResponse* reply) override {
    m_checks.fetch_add(1, std::memory_order_relaxed);
    const auto it = m_index.find(request->service());
    if (it == m_index.end()) {
      reply->set_status(grpc::health::v1::HealthCheckResponse::SERVICE_UNKNOWN);
      return grpc::Status::OK;
    }
    if (!m_checked[it->second].exchange(true, std::memory_order_relaxed)) {
      m_checked_nodes.fetch_add(1, std::memory_order_relaxed);
    }
    reply->set_status(grpc::health::v1::HealthCheckResponse::SERVING);
    return grpc::Status::OK;
  }

  long checks() const { return m_checks.load(); }
  long checked_nodes() const { return m_checked_nodes.load(); }

 private:
  std::unordered_map<std::string, std::size_t> m_index;  // written before the server starts
  std::vector<std::atomic<bool>> m_checked;
  std::atomic<long> m_checks{0};
  std::atomic<long> m_checked_nodes{0};
};

// An idle raylet's resource report. The GCS dials each row's own address, so the :authority it
// sends ("127.20.0.4:PORT") says which node it asks.
class ResourceLoadService final : public ray::rpc::NodeManagerService::Service {
 public:
  explicit ResourceLoadService(const std::vector<Node>& nodes, int port) : m_nodes(nodes) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      m_index.emplace(nodes[i].ip + ":" + std::to_string(port), i);
    }
  }

  grpc::Status GetResourceLoad(grpc::ServerContext* context, const ray::rpc::GetResourceLoadRequest*,
                               ray::rpc::GetResourceLoadReply* reply) override {
    m_pulls.fetch_add(1, std::memory_order_relaxed);
    const grpc::string_ref authority = context->ExperimentalGetAuthority();
    const auto it = m_index.find(std::string(authority.data(), authority.size()));
    if (it == m_index.end()) {
      return {grpc::StatusCode::NOT_FOUND, "no node at this address"};
    }
    const Node& n = m_nodes[it->second];
    ray::rpc::ResourcesData& data = *reply->mutable_resources();
    data.set_node_id(n.id);
    for (const auto& [name, quantity] : resources_of(n, it->second == 0)) {
      (*data.mutable_resources_available())[name] = quantity;
      (*data.mutable_resources_total())[name] = quantity;
    }
    data.set_node_manager_address(n.ip);
    data.set_idle_duration_ms(wall_ms() - m_started_ms);
    return grpc::Status::OK;
  }

  long pulls() const { return m_pulls.load(); }

 private:
  const std::vector<Node>& m_nodes;
  std::unordered_map<std::string, std::size_t> m_index;  // "ip:port" → node; written before the server starts
  std::int64_t m_started_ms = wall_ms();
  std::atomic<long> m_pulls{0};
};

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
  }
  std::rename(tmp.c_str(), path.c_str());
}

// One connection from the GCS per node, and this process's own few: above the usual 1,024.
void raise_open_files_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: gcs_scale_nodes GCS_HOST:PORT NODES HEALTH_PORT STATE_FILE NODES_FILE\n");
    return 2;
  }
  const std::string gcs = argv[1];
  const int count = std::stoi(argv[2]);
  const int port = std::stoi(argv[3]);
  const std::string state_file = argv[4];
  raise_open_files_limit();
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before gRPC's threads, which inherit it

  const std::vector<Node> nodes = make_nodes(count);
  HealthService health(nodes);
  ResourceLoadService load(nodes, port);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("0.0.0.0:" + std::to_string(port), grpc::InsecureServerCredentials());
  builder.RegisterService(&health);
  builder.RegisterService(&load);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::fprintf(stderr, "gcs_scale_nodes: cannot listen on port %d\n", port);
    return 1;
  }

  std::atomic<int> registered{0};
  std::atomic<bool> stopping{false};
  std::thread reporter([&] {
    while (!stopping.load()) {
      write_atomically(state_file, "registered=" + std::to_string(registered.load()) + " checks=" +
                                       std::to_string(health.checks()) +
                                       " checked_nodes=" + std::to_string(health.checked_nodes()) +
                                       " load_pulls=" + std::to_string(load.pulls()) + "\n");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  });

  auto stub = ray::rpc::NodeInfoGcsService::NewStub(grpc::CreateChannel(gcs, grpc::InsecureChannelCredentials()));
  const auto t0 = std::chrono::steady_clock::now();
  int exit_code = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    ray::rpc::RegisterNodeRequest request;
    *request.mutable_node_info() = row_of(nodes[i], port, i == 0);
    ray::rpc::RegisterNodeReply reply;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const grpc::Status s = stub->RegisterNode(&context, request, &reply);
    if (!s.ok() || reply.status().code() != 0) {
      std::fprintf(stderr, "gcs_scale_nodes: RegisterNode of %s failed: gRPC %d %s, Ray status %d %s\n",
                   nodes[i].name.c_str(), static_cast<int>(s.error_code()), s.error_message().c_str(),
                   reply.status().code(), reply.status().message().c_str());
      exit_code = 1;
      break;
    }
    registered.fetch_add(1);
  }
  if (exit_code == 0) {
    std::string listing;
    for (const Node& n : nodes) {
      listing += n.name + " " + n.id_hex + " " + n.ip + ":" + std::to_string(port) + "\n";
    }
    write_atomically(argv[5], listing);
    std::fprintf(stderr, "gcs_scale_nodes: %d nodes registered in %.1f s\n", count,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
  }
  stopping.store(true);
  reporter.join();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return exit_code;
}
