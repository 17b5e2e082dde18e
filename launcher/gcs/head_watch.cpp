#include "gcs/head_watch.hpp"

#include <grpcpp/support/status_code_enum.h>
#include <spdlog/spdlog.h>

#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

std::string short_hex(const std::string& bytes) { return to_hex(bytes).substr(0, 12); }

}  // namespace

HeadWatch::HeadWatch(GcsClient& client, std::string node_name, std::uint64_t not_before_ms)
    : m_client(client), m_name(std::move(node_name)), m_not_before_ms(not_before_ms) {}

HeadCheck HeadWatch::failed(const RpcError& e, const std::string& what) {
  if (e.grpc_code == grpc::StatusCode::UNAVAILABLE) {
    // The head may be a new process: reconnect, relearn its version. Not on CANCELLED (the watch
    // is being stopped, and the drain goes on on this channel) nor on DEADLINE_EXCEEDED: a slow
    // GCS would get a new connection, and with TLS a new handshake, every look.
    m_client.reset_channel();
  }
  return {HeadState::unknown, "head GCS at " + m_client.target() + " did not answer " + what + ": " + e.describe()};
}

HeadCheck HeadWatch::check(std::chrono::milliseconds timeout, std::stop_token stop) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                      deadline - std::chrono::steady_clock::now()));
  };
  if (m_cluster_id && m_own && node_filter_for(m_client.version()) == NodeFilter::node_selectors) {
    // Settled, on a GCS that finds a row by id in a map: the row alone says all is well, one RPC a
    // look instead of two (at 4,096 workers the second costs the GCS most of a core:
    // benchmarks/results/gcs-scale.md). A new cluster has no row with this node's id, so only a
    // row that is not ALIVE asks which it is: a replaced head, or this node dead.
    HeadCheck row = own_row(left(), stop);
    if (row.state != HeadState::node_dead) {
      return row;
    }
    HeadCheck id = cluster_id(left(), std::move(stop));
    return id.state == HeadState::ok ? row : id;
  }
  HeadCheck id = cluster_id(left(), stop);
  if (id.state != HeadState::ok) {
    return id;
  }
  return own_row(left(), std::move(stop));
}

HeadCheck HeadWatch::cluster_id(std::chrono::milliseconds timeout, std::stop_token stop) {
  if (m_no_cluster_id) {
    return {HeadState::ok, ""};
  }
  const auto id = get_cluster_id(m_client, timeout, std::move(stop), &m_cost);
  if (!id) {
    if (id.error().unimplemented()) {
      m_no_cluster_id = true;
      spdlog::info("head GCS at {} has no GetClusterId (Ray < 2.6): a replaced head is noticed by this node's "
                   "row alone", m_client.target());
      return {HeadState::ok, ""};
    }
    return failed(id.error(), "GetClusterId");
  }
  if (!m_cluster_id) {
    m_cluster_id = id.value();
    spdlog::info("watching the head: cluster {} at {}", short_hex(id.value()), m_client.target());
  } else if (*m_cluster_id != id.value()) {
    return {HeadState::replaced, "the head's GCS at " + m_client.target() + " is a new cluster (cluster id " +
                                     short_hex(id.value()) + ", was " + short_hex(*m_cluster_id) +
                                     "): the head restarted without GCS fault tolerance, and this node belonged to "
                                     "the old cluster"};
  }
  return {HeadState::ok, ""};
}

HeadCheck HeadWatch::own_row(std::chrono::milliseconds timeout, std::stop_token stop) {
  if (!m_client.version()) {
    const auto version = m_client.check_alive(timeout, stop);  // empty: never ids (ray-gcs-wire.md §3)
    m_cost.rpcs += 1;  // its reply, a version string, is a few bytes: not counted
    if (!version) {
      return failed(version.error(), "CheckAlive");
    }
  }
  const NodeFilter filter = node_filter_for(m_client.version());
  if (filter != NodeFilter::node_selectors) {
    // Only Ray >= 2.49 finds a node by id in a map (node_selectors). Ray 2.36-2.48 filters by
    // testing every row, alive and dead, against the request (HandleGetAllNodeInfo's filter_fn
    // over alive_nodes_ and dead_nodes_, Ray 2.40), so N watchers would cost the GCS O(N²) every
    // look; Ray <= 2.35 cannot filter at all (the whole table), and its CheckAlive by raylet
    // address is wrong after a container restart (one address per node in a bimap: the old node's
    // removal drops the address the new raylet shares). Only the cluster id is watched there.
    if (!m_said_unfiltered) {
      m_said_unfiltered = true;
      spdlog::info("head GCS at {} (Ray < 2.49) cannot look a node up by id without scanning its table: the watch "
                   "reads the cluster id only", m_client.target());
    }
    return {HeadState::ok, ""};
  }
  if (!m_own) {
    NodeTable table;
    const auto found = find_own_node(m_client, m_name, m_not_before_ms, timeout, std::move(stop), &table, &m_cost);
    if (!found) {
      return failed(found.error(), "the node lookup");
    }
    if (!found.value()) {
      // Not registered yet (ray start gives its raylet 30 s), or a stale DEAD row of an earlier
      // container: neither is this raylet's verdict.
      return {HeadState::unknown, no_own_node_line(table, m_name), true};
    }
    m_own = found.value();
    spdlog::info("watching the head: {} is node {} at {}", m_name, m_own->id.hex().substr(0, 12),
                 m_own->raylet_address);
    return {HeadState::ok, ""};
  }
  const auto rows = get_nodes(m_client, NodeMatch{m_own->id, ""}, filter, timeout, std::move(stop), &m_cost);
  if (!rows) {
    return failed(rows.error(), "GetAllNodeInfo");
  }
  const std::string hex = m_own->id.hex();
  for (const NodeEntry& e : rows.value().nodes) {
    if (e.node_id_hex != hex) {
      continue;
    }
    if (e.alive) {
      return {HeadState::ok, ""};
    }
    return {HeadState::node_dead, m_name + " (node " + hex.substr(0, 12) + ") is DEAD in the head's GCS" +
                                      (e.death_reason.empty() ? "" : " (" + util::printable(e.death_reason) + ")")};
  }
  return {HeadState::node_dead, m_name + " (node " + hex.substr(0, 12) + ") is gone from the head's GCS node table"};
}

WatchEnd watch_head(HeadWatch& watch, const WatchOptions& options, util::Clock& clock, std::stop_token stop) {
  std::string trouble;  // the line of the transient trouble under way, "" when none
  const auto rpc_timeout = std::min(options.rpc_timeout, options.period);
  while (!stop.stop_requested()) {
    const auto started = clock.now();
    const HeadCheck c = watch.check(rpc_timeout, stop);
    if (options.on_look) {
      options.on_look(watch.cost());
    }
    if (stop.stop_requested()) {
      break;
    }
    if (c.state == HeadState::replaced || c.state == HeadState::node_dead) {
      return {c.state, c.line};
    }
    if (c.registering) {
      spdlog::debug("watching the head: {}", c.line);
    } else if (c.state == HeadState::unknown && c.line != trouble) {
      spdlog::warn("watching the head: {}", c.line);
      trouble = c.line;
    } else if (c.state == HeadState::ok && !trouble.empty()) {
      spdlog::info("watching the head: it answers again, and this node is ALIVE in it");
      trouble.clear();
    }
    const auto spent = util::ms_between(started, clock.now());
    if (!clock.sleep_for(options.period > spent ? options.period - spent : std::chrono::milliseconds(0), stop)) {
      break;
    }
  }
  return {HeadState::unknown, ""};
}

}  // namespace launcher::gcs
