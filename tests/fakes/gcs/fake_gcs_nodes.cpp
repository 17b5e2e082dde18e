// FAKE GCS, for tests only: nodes that register themselves (RegisterNode / UnregisterNode from
// a raylet over TCP), their health checks, and how nodes become DEAD.
#include <cstdio>

#include "fake_gcs.hpp"

namespace fake {

namespace {

constexpr std::size_t k_max_dead = 1000;     // maximum_gcs_dead_node_cached_count (ray_config_def.h)
constexpr std::size_t k_node_id_bytes = 28;  // kUniqueIDSize
// Ray's reason text when GcsHealthCheckManager gives up on a raylet (GcsNodeManager::InferDeathInfo).
constexpr const char* k_health_check_failed = "health check failed due to missing too many heartbeats";

}  // namespace

// Ray's GcsNodeManager::HandleRegisterNode: the raylet's GcsNodeInfo is stored as sent; a new head
// marks the previous ALIVE head DEAD (OnNodeFailure); a node id that is already ALIVE is left as
// is. Nothing is deduplicated by node_name or address: a restarted pod's new node id gives a second
// ALIVE row until the old one's health check fails. Health checks start right away.
grpc::Status FakeGcs::RegisterNode(grpc::ServerContext* context, const ray::rpc::RegisterNodeRequest* request,
                                   ray::rpc::RegisterNodeReply* reply) {
  if (grpc::Status s = admit(context, "RegisterNode"); !s.ok()) {
    return s;
  }
  const ray::rpc::GcsNodeInfo& info = request->node_info();
  const std::lock_guard lock(m_mutex);
  if (info.node_id().size() != k_node_id_bytes) {
    reply->mutable_status()->set_code(4);  // StatusCode::Invalid
    reply->mutable_status()->set_message("node_id must be " + std::to_string(k_node_id_bytes) + " bytes");
    return grpc::Status::OK;
  }
  for (const ray::rpc::GcsNodeInfo& n : m_nodes) {
    if (n.node_id() == info.node_id() && n.state() == ray::rpc::GcsNodeInfo::ALIVE) {
      return grpc::Status::OK;
    }
  }
  if (info.is_head_node()) {
    ray::rpc::NodeDeathInfo death;
    death.set_reason(ray::rpc::NodeDeathInfo::UNEXPECTED_TERMINATION);
    if (version_at_least(2, 30)) {
      death.set_reason_message(k_health_check_failed);
    }
    for (ray::rpc::GcsNodeInfo& n : m_nodes) {
      if (n.is_head_node() && n.state() == ray::rpc::GcsNodeInfo::ALIVE) {
        mark_dead(n, death);
      }
    }
  }
  ray::rpc::GcsNodeInfo n = info;
  n.set_state(ray::rpc::GcsNodeInfo::ALIVE);
  m_nodes.push_back(n);
  const std::string address = n.node_manager_address() + ":" + std::to_string(n.node_manager_port());
  m_health->add(n.node_id(), address);
  std::fprintf(stderr, "fake_gcs: RegisterNode %s name=%s raylet=%s head=%d\n", to_hex(n.node_id()).c_str(),
               n.node_name().c_str(), address.c_str(), n.is_head_node() ? 1 : 0);
  evict_dead();
  return grpc::Status::OK;
}

// Ray's GcsNodeManager::HandleUnregisterNode: the node goes DEAD with the death info the raylet
// sent (EXPECTED_TERMINATION "received SIGTERM" on a graceful shutdown).
grpc::Status FakeGcs::UnregisterNode(grpc::ServerContext* context, const ray::rpc::UnregisterNodeRequest* request,
                                     ray::rpc::UnregisterNodeReply* /*reply*/) {
  if (grpc::Status s = admit(context, "UnregisterNode"); !s.ok()) {
    return s;
  }
  const std::lock_guard lock(m_mutex);
  for (ray::rpc::GcsNodeInfo& n : m_nodes) {
    if (n.node_id() == request->node_id() && n.state() == ray::rpc::GcsNodeInfo::ALIVE) {
      mark_dead(n, request->node_death_info());
      std::fprintf(stderr, "fake_gcs: UnregisterNode %s name=%s: %s\n", to_hex(n.node_id()).c_str(),
                   n.node_name().c_str(), request->node_death_info().reason_message().c_str());
    }
  }
  evict_dead();
  return grpc::Status::OK;
}

void FakeGcs::on_health_check_failed(const std::string& node_id) {
  const std::lock_guard lock(m_mutex);
  ray::rpc::NodeDeathInfo death;
  death.set_reason(ray::rpc::NodeDeathInfo::UNEXPECTED_TERMINATION);
  if (version_at_least(2, 30)) {  // reason_message: absent at 2.9.0, present at 2.30.0
    death.set_reason_message(k_health_check_failed);
  }
  for (ray::rpc::GcsNodeInfo& n : m_nodes) {
    if (n.node_id() == node_id && n.state() == ray::rpc::GcsNodeInfo::ALIVE) {
      mark_dead(n, death);
      std::fprintf(stderr, "fake_gcs: node %s name=%s DEAD: %s\n", to_hex(node_id).c_str(), n.node_name().c_str(),
                   k_health_check_failed);
    }
  }
  evict_dead();
}

void FakeGcs::mark_dead(ray::rpc::GcsNodeInfo& node, const ray::rpc::NodeDeathInfo& death) {
  node.set_state(ray::rpc::GcsNodeInfo::DEAD);
  node.set_end_time_ms(now_ms());
  *node.mutable_death_info() = death;
  m_health->remove(node.node_id());
}

void FakeGcs::evict_dead() {
  std::size_t dead = 0;
  for (const ray::rpc::GcsNodeInfo& n : m_nodes) {
    dead += n.state() == ray::rpc::GcsNodeInfo::DEAD ? 1 : 0;
  }
  for (auto it = m_nodes.begin(); it != m_nodes.end() && dead > k_max_dead;) {
    if (it->state() == ray::rpc::GcsNodeInfo::DEAD) {
      it = m_nodes.erase(it);
      --dead;
    } else {
      ++it;
    }
  }
}

}  // namespace fake
