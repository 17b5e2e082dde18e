// FAKE, for tests only: the fake GCS's DrainNode (fake_drain.hpp).
#include "fake_drain.hpp"

#include <cstdio>
#include <cstdlib>

namespace fake {

grpc::Status FakeGcs::drain_node(grpc::ServerContext* context, const ray::rpc::autoscaler::DrainNodeRequest& request,
                                 ray::rpc::autoscaler::DrainNodeReply& reply) {
  if (grpc::Status s = admit(context, "DrainNode"); !s.ok()) {
    return s;
  }
  if (request.node_id().size() != 28) {
    // What Ray's GCS does: NodeID::FromBinary RAY_CHECKs the size, and the GCS dies.
    std::fprintf(stderr, "fake_gcs: DrainNode with a %zu-byte node id: aborting, as Ray's GCS does\n",
                 request.node_id().size());
    std::abort();
  }
  const std::lock_guard lock(m_mutex);
  m_drains.push_back("DRAIN " + describe_drain(request));
  if (m_options.drain == "reject") {
    reply.set_is_accepted(false);
    reply.set_rejection_reason_message("fake GCS: drains are rejected here");
    return grpc::Status::OK;
  }
  reply.set_is_accepted(true);
  if (m_options.drain == "idle") {
    for (ray::rpc::GcsNodeInfo& n : m_nodes) {
      if (n.node_id() == request.node_id() && n.state() == ray::rpc::GcsNodeInfo::ALIVE) {
        ray::rpc::NodeDeathInfo death;
        death.set_reason(ray::rpc::NodeDeathInfo::AUTOSCALER_DRAIN_PREEMPTED);
        death.set_reason_message(request.reason_message());
        mark_dead(n, death);
      }
    }
  }
  return grpc::Status::OK;
}

std::string FakeGcs::describe_drain(const ray::rpc::autoscaler::DrainNodeRequest& request) {
  return to_hex(request.node_id()) + " reason=" + std::to_string(request.reason()) +
         " deadline_ms=" + std::to_string(request.deadline_timestamp_ms()) + " message=" + request.reason_message();
}

}  // namespace fake
