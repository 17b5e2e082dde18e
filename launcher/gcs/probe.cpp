#include "gcs/probe.hpp"

#include "gcs/gcs_client.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

constexpr int k_serving = 1;  // grpc.health.v1.HealthCheckResponse.SERVING

std::string within(const ProbeTarget& t) { return " within " + util::format_duration(t.timeout); }

ProbeResult probe_head(ProbeKind kind, const ProbeTarget& target, GcsClient& client) {
  const std::string address = "127.0.0.1:" + std::to_string(target.ray_port);
  const auto version = client.check_alive(target.timeout);
  const std::string who = "head GCS at " + address;
  if (version) {
    return {true, who + " answered (Ray " + version.value() + ")"};
  }
  if (kind == ProbeKind::liveness && version.error().unauthenticated()) {
    return {true, who + " answered UNAUTHENTICATED: alive, but this probe's RAY_AUTH_TOKEN is missing or wrong"};
  }
  return {false, who + " did not answer" + within(target) + ": " + version.error().describe()};
}

ProbeResult probe_worker_liveness(const ProbeTarget& target, HealthClient& raylet) {
  // Ray's GCS health-checks raylets the same way, with service "<node id hex>"; "" asks about
  // the server as a whole and needs no node id (gRPC's default health service answers it).
  const std::string address = "127.0.0.1:" + std::to_string(target.node_manager_port);
  const auto status = raylet.check("", target.timeout);
  const std::string who = "raylet at " + address;
  if (!status) {
    return {false, who + " did not answer" + within(target) + ": " + status.error().describe() +
                       " (is ray start running with --node-manager-port=" +
                       std::to_string(target.node_manager_port) + "?)"};
  }
  if (status.value() != k_serving) {
    return {false, who + " answered health status " + std::to_string(status.value()) + ", not SERVING"};
  }
  return {true, who + " is SERVING"};
}

ProbeResult probe_worker_readiness(const ProbeTarget& target, GcsClient& client) {
  const std::string& name = target.node_name;
  const auto table = client.get_node_info_by_name(name, target.timeout);
  const std::string gcs = "head GCS at " + client.target();
  if (!table) {
    return {false, gcs + " did not answer" + within(target) + ": " + table.error().describe()};
  }
  const NodeEntry* dead = nullptr;
  for (const NodeEntry& e : table.value().nodes) {
    if (e.pod_key() != name) {
      continue;  // Ray <= 2.48 ignores the selector and lists every node
    }
    if (e.alive) {
      return {true, name + " is ALIVE in the " + gcs + " (node " + e.node_id_hex.substr(0, 12) + ")"};
    }
    dead = &e;
  }
  if (dead != nullptr) {
    return {false, name + " is DEAD in the " + gcs + " node table" +
                       (dead->death_reason.empty() ? "" : " (" + util::printable(dead->death_reason) + ")")};
  }
  return {false, name + " is not registered in the " + gcs + " (is the raylet started with --node-name=" + name +
                     "?)"};
}

}  // namespace

// The GCS binds every interface, and localhost only when the node IP is 127.0.0.1
// (ray-gcs-wire.md §1): 127.0.0.1 reaches it either way. The "ipv4:" scheme skips gRPC's
// resolver and its address sorting, a measurable part of a few-millisecond probe.
struct Prober::Clients {
  Clients(const ProbeTarget& t, const std::optional<AuthToken>& token)
      : local_gcs("ipv4:127.0.0.1:" + std::to_string(t.ray_port), token),
        head_gcs(t.head_address, token),
        raylet("ipv4:127.0.0.1:" + std::to_string(t.node_manager_port)) {}
  GcsClient local_gcs;
  GcsClient head_gcs;
  HealthClient raylet;
};

Prober::Prober(ProbeTarget target, std::optional<AuthToken> token)
    : m_target(std::move(target)), m_token(std::move(token)) {}

Prober::~Prober() = default;

ProbeResult Prober::probe(ProbeKind kind) {
  if (!m_clients) {
    m_clients = std::make_unique<Clients>(m_target, m_token);  // channels connect lazily
  }
  if (m_target.head) {
    return probe_head(kind, m_target, m_clients->local_gcs);
  }
  return kind == ProbeKind::liveness ? probe_worker_liveness(m_target, m_clients->raylet)
                                     : probe_worker_readiness(m_target, m_clients->head_gcs);
}

ProbeResult run_probe(ProbeKind kind, const ProbeTarget& target, const std::optional<AuthToken>& token) {
  return Prober(target, token).probe(kind);
}

}  // namespace launcher::gcs
