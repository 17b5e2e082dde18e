#include "gcs/own_node.hpp"

#include "util/strings.hpp"

namespace launcher::gcs {

std::optional<OwnNode> own_node_in(const NodeTable& table, const std::string& name, std::uint64_t not_before_ms) {
  std::optional<OwnNode> best;
  for (const NodeEntry& e : table.nodes) {
    if (!e.alive || e.node_name != name || e.started_before(not_before_ms)) {
      continue;
    }
    auto id = NodeId::from_hex(e.node_id_hex);
    if (!id) {
      continue;  // a server that lies about ids: never send one back
    }
    if (!best || e.start_time_ms > best->start_time_ms) {
      best = OwnNode{std::move(*id), e.address + ":" + std::to_string(e.node_manager_port), e.start_time_ms};
    }
  }
  return best;
}

std::string no_own_node_line(const NodeTable& table, const std::string& name) {
  const NodeEntry* newest_dead = nullptr;
  for (const NodeEntry& e : table.nodes) {
    if (e.node_name == name && !e.alive && (newest_dead == nullptr || e.start_time_ms > newest_dead->start_time_ms)) {
      newest_dead = &e;
    }
  }
  if (newest_dead != nullptr) {
    return name + " is DEAD in the head's GCS" +
           (newest_dead->death_reason.empty() ? "" : " (" + util::printable(newest_dead->death_reason) + ")");
  }
  return name + " has no ALIVE row in the head's GCS (not registered)";
}

util::Result<std::optional<OwnNode>, RpcError> find_own_node(GcsClient& client, const std::string& name,
                                                             std::uint64_t not_before_ms,
                                                             std::chrono::milliseconds timeout, std::stop_token stop,
                                                             NodeTable* table, CallCost* cost) {
  using R = util::Result<std::optional<OwnNode>, RpcError>;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                      deadline - std::chrono::steady_clock::now()));
  };
  if (!client.version()) {
    const auto version = client.check_alive(left(), stop);  // empty: never ids (ray-gcs-wire.md §3)
    if (cost != nullptr) {
      cost->rpcs += 1;  // its reply (a version string) is a few bytes: not counted
    }
    if (!version) {
      return R::failure(version.error());
    }
  }
  auto rows = get_nodes(client, NodeMatch{std::nullopt, name}, node_filter_for(client.version()), left(),
                        std::move(stop), cost);
  if (!rows) {
    return R::failure(rows.error());
  }
  std::optional<OwnNode> found = own_node_in(rows.value(), name, not_before_ms);
  if (table != nullptr) {
    *table = std::move(rows.value());
  }
  return found;
}

}  // namespace launcher::gcs
