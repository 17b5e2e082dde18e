// FAKE GCS, for tests only: Ray's raylet health checks (see health_checker.hpp).
#include "health_checker.hpp"

#include <chrono>
#include <cstdlib>

#include "fake_health.grpc.pb.h"

namespace fake {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return fallback;
  }
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != nullptr && *end == '\0' && n >= 0 ? static_cast<int>(n) : fallback;
}

}  // namespace

std::string to_hex(const std::string& bytes) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += k_digits[b >> 4];
    out += k_digits[b & 0x0f];
  }
  return out;
}

HealthCheckConfig health_check_config_from_env() {
  HealthCheckConfig c;
  c.initial_delay_ms = env_int("RAY_health_check_initial_delay_ms", c.initial_delay_ms);
  c.period_ms = env_int("RAY_health_check_period_ms", c.period_ms);
  c.timeout_ms = env_int("RAY_health_check_timeout_ms", c.timeout_ms);
  c.failure_threshold = env_int("RAY_health_check_failure_threshold", c.failure_threshold);
  return c;
}

HealthChecker::HealthChecker(HealthCheckConfig config, OnDeath on_death)
    : m_config(config), m_on_death(std::move(on_death)) {}

HealthChecker::~HealthChecker() {
  {
    const std::lock_guard lock(m_mutex);
    m_shutdown = true;
    for (auto& [id, node] : m_nodes) {
      node->stop = true;
      if (node->in_flight != nullptr) {
        node->in_flight->TryCancel();
      }
    }
  }
  m_cv.notify_all();
  for (std::thread& t : m_threads) {
    t.join();
  }
}

void HealthChecker::add(const std::string& node_id, const std::string& address) {
  const std::lock_guard lock(m_mutex);
  if (m_shutdown || m_nodes.count(node_id) != 0) {
    return;
  }
  auto node = std::make_shared<Node>();
  node->id = node_id;
  node->id_hex = to_hex(node_id);
  node->address = address;
  m_nodes[node_id] = node;
  m_threads.emplace_back([this, node] { run(node); });
}

void HealthChecker::remove(const std::string& node_id) {
  {
    const std::lock_guard lock(m_mutex);
    const auto it = m_nodes.find(node_id);
    if (it == m_nodes.end()) {
      return;
    }
    it->second->stop = true;
    if (it->second->in_flight != nullptr) {
      it->second->in_flight->TryCancel();
    }
    m_nodes.erase(it);
  }
  m_cv.notify_all();
}

void HealthChecker::pause() {
  {
    const std::lock_guard lock(m_mutex);
    m_paused = true;
    for (auto& [id, node] : m_nodes) {
      if (node->in_flight != nullptr) {
        node->in_flight->TryCancel();  // a GCS that is down gets no replies either
      }
    }
  }
  m_cv.notify_all();
}

void HealthChecker::resume() {
  {
    const std::lock_guard lock(m_mutex);
    m_paused = false;
    ++m_generation;
  }
  m_cv.notify_all();
}

// One Check call; true when the raylet answered SERVING within the deadline.
bool HealthChecker::check_once(Node& node, const std::shared_ptr<grpc::Channel>& channel) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(m_config.timeout_ms));
  {
    const std::lock_guard lock(m_mutex);
    if (node.stop || m_paused) {
      return true;  // not a verdict: the caller re-checks stop/pause
    }
    node.in_flight = &context;
  }
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(node.id_hex);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = grpc::health::v1::Health::NewStub(channel)->Check(&context, request, &response);
  const std::lock_guard lock(m_mutex);
  node.in_flight = nullptr;
  return status.ok() && response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

void HealthChecker::run(std::shared_ptr<Node> node) {
  using clock = std::chrono::steady_clock;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);  // as Ray's clients (grpc_client.cc)
  const auto channel = grpc::CreateCustomChannel(node->address, m_config.credentials, args);
  std::uint64_t generation = 0;
  int remaining = m_config.failure_threshold;
  clock::time_point next;
  bool fresh = true;
  for (;;) {
    {
      std::unique_lock lock(m_mutex);
      if (fresh || generation != m_generation) {
        fresh = false;
        generation = m_generation;
        remaining = m_config.failure_threshold;
        next = clock::now() + std::chrono::milliseconds(m_config.initial_delay_ms);
      }
      const bool woken =
          m_cv.wait_until(lock, next, [&] { return node->stop || m_paused || generation != m_generation; });
      if (node->stop) {
        return;
      }
      if (m_paused) {
        m_cv.wait(lock, [&] { return node->stop || !m_paused; });
        fresh = true;
        continue;
      }
      if (woken) {
        continue;  // a new generation: start over
      }
    }
    const bool ok = check_once(*node, channel);
    {
      const std::lock_guard lock(m_mutex);
      if (node->stop) {
        return;
      }
      if (m_paused || generation != m_generation) {
        continue;  // a verdict from before a GCS restart counts for nothing
      }
    }
    remaining = ok ? m_config.failure_threshold : remaining - 1;
    if (remaining <= 0) {
      {
        const std::lock_guard lock(m_mutex);
        const auto it = m_nodes.find(node->id);
        if (it != m_nodes.end() && it->second == node) {
          m_nodes.erase(it);
        }
      }
      m_on_death(node->id);
      return;
    }
    next = clock::now() + std::chrono::milliseconds(m_config.period_ms);
  }
}

}  // namespace fake
