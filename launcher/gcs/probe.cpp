#include "gcs/probe.hpp"

#include "gcs/cluster_rpcs.hpp"
#include "gcs/gcs_client.hpp"
#include "gcs/own_node.hpp"
#include "util/parse.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

constexpr int k_serving = 1;  // grpc.health.v1.HealthCheckResponse.SERVING

std::string within(const ProbeTarget& t) {
  return " within " + util::format_duration(t.timeout);
}

ProbeResult probe_head(ProbeKind kind, const ProbeTarget& target, GcsClient& client) {
  const std::string address = std::string(platform::k_loopback) + ":" + std::to_string(target.ray_port);
  const auto version = client.check_alive(target.timeout);
  const std::string who = "head GCS at " + address;
  if (version) {
    return {true, who + " answered (Ray " + version.value() + ")"};
  }
  if (kind == ProbeKind::liveness && version.error().unauthenticated()) {
    return {true, who + " answered UNAUTHENTICATED: alive, but this probe's Ray auth token is missing or wrong"};
  }
  client.reset_channel();
  return {false, who + " did not answer" + within(target) + ": " + version.error().describe()};
}

ProbeResult probe_worker_liveness(const ProbeTarget& target, HealthClient& raylet) {
  // Ray's GCS health-checks raylets the same way, with service "<node id hex>"; "" asks about
  // the server as a whole and needs no node id (gRPC's default health service answers it).
  const std::string address = std::string(platform::k_loopback) + ":" + std::to_string(target.node_manager_port);
  const auto status = raylet.check("", target.timeout);
  const std::string who = "raylet at " + address;
  if (!status) {
    const RpcError& e = status.error();
    return {false, who + " did not answer" + within(target) + ": " + e.describe() +
                       (e.tls_problem.empty() ? " (is ray start running with --node-manager-port=" +
                                                    std::to_string(target.node_manager_port) + "?)"
                                              : "")};
  }
  if (status.value() != k_serving) {
    return {false, who + " answered health status " + std::to_string(status.value()) + ", not SERVING"};
  }
  return {true, who + " is SERVING"};
}

// This pod's verdict from the rows the GCS returned (all of them where it could not filter).
ProbeResult readiness_from(const NodeTable& table, const std::string& name, const std::string& gcs) {
  const NodeEntry* dead = nullptr;
  for (const NodeEntry& e : table.nodes) {
    if (e.pod_key() != name) {
      continue;
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
  return {false, name + " is not registered in the " + gcs + " (is the raylet started with --node-name=" + name + "?)"};
}

}  // namespace

// The local servers are dialled on platform::k_loopback. The "ipv4:" scheme skips gRPC's
// resolver and its address sorting, a measurable part of a few-millisecond probe; with TLS the
// name checked against the certificate is still the IP, 127.0.0.1.
struct Prober::Clients {
  Clients(const ProbeTarget& t, const Credentials& credentials, util::Clock& clock)
      : local_gcs("ipv4:" + std::string(platform::k_loopback) + ":" + std::to_string(t.ray_port), credentials),
        head_gcs(t.head_address, credentials),
        raylet("ipv4:" + std::string(platform::k_loopback) + ":" + std::to_string(t.node_manager_port), credentials.tls),
        unfiltered(clock) {}
  GcsClient local_gcs;
  GcsClient head_gcs;
  HealthClient raylet;
  ReadinessCache unfiltered;
  std::optional<NodeId> own_id;  // this pod's row, once an answer by name found it ALIVE (Ray >= 2.49)
};

Prober::Prober(ProbeTarget target, Credentials credentials, util::Clock* clock)
    : m_target(std::move(target)), m_credentials(std::move(credentials)) {
  if (clock == nullptr) {
    m_own_clock = std::make_unique<util::SteadyClock>();
    clock = m_own_clock.get();
  }
  m_clock = clock;
}

Prober::~Prober() = default;

ProbeResult Prober::probe(ProbeKind kind) {
  if (!m_clients) {
    m_clients = std::make_unique<Clients>(m_target, m_credentials, *m_clock);  // channels connect lazily
  }
  if (m_target.head) {
    return probe_head(kind, m_target, m_clients->local_gcs);
  }
  if (kind == ProbeKind::liveness) {
    return probe_worker_liveness(m_target, m_clients->raylet);
  }
  // Worker readiness: the whole probe shares one deadline, version lookup included.
  GcsClient& gcs = m_clients->head_gcs;
  const std::string who = "head GCS at " + gcs.target();
  const auto deadline = m_clock->now() + m_target.timeout;
  auto left = [&] { return std::max(std::chrono::milliseconds(1), util::ms_between(m_clock->now(), deadline)); };
  auto failed = [&](const RpcError& e) {
    if (e.grpc_code != 0) {
      gcs.reset_channel();  // learn the version again on the next channel: the head may be new
    }
    return ProbeResult{false, who + " did not answer" + within(m_target) + ": " + e.describe()};
  };
  if (!gcs.version()) {
    const auto version = gcs.check_alive(left());  // empty: never node ids (ray-gcs-wire.md §3)
    if (!version) {
      return failed(version.error());
    }
  }
  const NodeFilter filter = node_filter_for(gcs.version());
  if (filter == NodeFilter::none) {
    if (auto cached = m_clients->unfiltered.fresh()) {
      return *cached;
    }
  } else {
    m_clients->unfiltered.clear();
  }
  // On Ray >= 2.49 a node id is a map lookup on the GCS, a name a scan of every row on every
  // release (gcs_node_manager.cc, HandleGetAllNodeInfo: only node-id-only selectors take the fast
  // path; 2.36-2.48 apply their Filters row by row, an id as much as a name). So once an answer by
  // name has found this pod's row, the next ones ask for that row by its id; a row no longer ALIVE
  // (DEAD, or gone with a new head) sends the answer back to the name, under which a new raylet of
  // this pod registers.
  std::optional<NodeId>& own_id = m_clients->own_id;
  if (filter == NodeFilter::node_selectors && own_id) {
    const auto row = get_nodes(gcs, NodeMatch{own_id, ""}, filter, left(), {});
    if (!row) {
      return failed(row.error());
    }
    ProbeResult by_id = readiness_from(row.value(), m_target.node_name, who);
    if (by_id.healthy) {
      return by_id;
    }
    own_id.reset();
  }
  const auto table = gcs.get_node_info_by_name(m_target.node_name, filter, left());
  if (!table) {
    return failed(table.error());
  }
  ProbeResult result = readiness_from(table.value(), m_target.node_name, who);
  if (filter == NodeFilter::none) {
    m_clients->unfiltered.store(result);
  } else if (filter == NodeFilter::node_selectors) {
    const auto found = own_node_in(table.value(), m_target.node_name);
    own_id = found ? std::optional<NodeId>(found->id) : std::nullopt;
  }
  return result;
}

ProbeResult run_probe(ProbeKind kind, const ProbeTarget& target, const Credentials& credentials) {
  return Prober(target, credentials).probe(kind);
}

ReadinessCache::ReadinessCache(util::Clock& clock, std::chrono::milliseconds period, std::uint64_t seed)
    : m_clock(clock), m_period(period), m_rng(seed) {}

std::optional<ProbeResult> ReadinessCache::fresh() {
  const auto now = m_clock.now();
  if (!m_answer || now >= m_expires) {
    return std::nullopt;
  }
  ProbeResult r = *m_answer;
  r.line += " (Ray <= 2.35 lists every node: answer from " + util::format_elapsed(util::ms_between(m_at, now)) +
            " ago, asked at most every " + util::format_duration(m_period) + ")";
  return r;
}

void ReadinessCache::store(const ProbeResult& result) {
  if (!result.healthy) {
    m_answer.reset();
    return;
  }
  std::uniform_int_distribution<std::int64_t> jitter(0, m_period.count() / 5);
  m_answer = result;
  m_at = m_clock.now();
  m_expires = m_at + m_period + std::chrono::milliseconds(jitter(m_rng));
}

}  // namespace launcher::gcs
