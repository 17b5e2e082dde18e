#pragma once
// FAKE GCS, for tests only: raylet health checking as Ray's GcsHealthCheckManager does it
// (src/ray/gcs/gcs_server/gcs_health_check_manager.cc; ray-gcs-wire.md §3). For each registered
// node: wait `initial_delay_ms`, then call grpc.health.v1.Health/Check{service: <node id hex>} on
// node_manager_address:node_manager_port with a `timeout_ms` deadline; a SERVING reply resets the
// budget to `failure_threshold`, anything else takes one from it; the next check starts
// `period_ms` after the previous reply. When the budget reaches 0 the node is reported dead.
#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fake {

// Ray's defaults (ray_config_def.h, 2.9 … master): health_check_initial_delay_ms, _period_ms,
// _timeout_ms, _failure_threshold. Ray reads each from RAY_<name> in the environment.
struct HealthCheckConfig {
  int initial_delay_ms = 5000;
  int period_ms = 3000;
  int timeout_ms = 10000;
  int failure_threshold = 5;
  // Plaintext unless the GCS runs with TLS: Ray's health checks use the GCS's own client credentials.
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
};

class HealthChecker {
 public:
  // Called from a checker thread, without any of the checker's locks held.
  using OnDeath = std::function<void(const std::string& node_id)>;

  HealthChecker(HealthCheckConfig config, OnDeath on_death);
  ~HealthChecker();
  HealthChecker(const HealthChecker&) = delete;
  HealthChecker& operator=(const HealthChecker&) = delete;

  // Starts checking `node_id` (binary) at `address` (host:port). A node already checked is left alone.
  void add(const std::string& node_id, const std::string& address);
  // Stops checking a node (unregistered, or declared dead some other way).
  void remove(const std::string& node_id);
  // The GCS is down (no checks) / back up: every check starts over with the initial delay, as a
  // restarted GCS re-adds its alive nodes to a fresh manager.
  void pause();
  void resume();

  const HealthCheckConfig& config() const { return m_config; }

 private:
  struct Node {
    std::string id;
    std::string id_hex;
    std::string address;
    bool stop = false;
    grpc::ClientContext* in_flight = nullptr;  // cancelled by remove() and shutdown
  };
  void run(std::shared_ptr<Node> node);
  bool check_once(Node& node, const std::shared_ptr<grpc::Channel>& channel);

  HealthCheckConfig m_config;
  OnDeath m_on_death;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_paused = false;
  bool m_shutdown = false;
  std::uint64_t m_generation = 0;  // bumped on resume(): checks restart from the initial delay
  std::map<std::string, std::shared_ptr<Node>> m_nodes;
  std::vector<std::thread> m_threads;
};

// Reads HealthCheckConfig from Ray's environment variables (RAY_health_check_initial_delay_ms, …).
HealthCheckConfig health_check_config_from_env();

std::string to_hex(const std::string& bytes);

}  // namespace fake
