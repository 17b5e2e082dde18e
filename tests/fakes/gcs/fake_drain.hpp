#pragma once
// FAKE, for tests only: DrainNode of Ray's autoscaler state service on the fake GCS (`fake_gcs
// serve --drain busy|idle|reject`; without --drain the service is not there and a client gets
// UNIMPLEMENTED, as from a GCS before Ray 2.9). Like Ray's GCS it aborts on a node id that is not
// 28 bytes (NodeID::FromBinary → RAY_CHECK) and accepts a drain of a node it does not know as
// ALIVE. busy: the node stays ALIVE (work runs on it); idle: it goes DEAD at once, recorded
// AUTOSCALER_DRAIN_PREEMPTED with the drain's message (a drained, idle raylet exits, Ray's
// local_resource_manager.cc); reject: is_accepted false. `ctl drains` lists the requests.
#include "fake_autoscaler.grpc.pb.h"
#include "fake_gcs.hpp"

namespace fake {

class FakeAutoscaler final : public ray::rpc::autoscaler::AutoscalerStateService::Service {
 public:
  explicit FakeAutoscaler(FakeGcs& gcs) : m_gcs(gcs) {}

  grpc::Status DrainNode(grpc::ServerContext* context, const ray::rpc::autoscaler::DrainNodeRequest* request,
                         ray::rpc::autoscaler::DrainNodeReply* reply) override {
    return m_gcs.drain_node(context, *request, *reply);
  }

 private:
  FakeGcs& m_gcs;
};

}  // namespace fake
