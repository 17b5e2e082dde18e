#pragma once
#include <string>

#include "gcs/gcs_client.hpp"
#include "gcs/join_barrier.hpp"

namespace launcher::gcs {

// The barrier's production NodeSource on one reused channel, dropped after a transport failure
// so the next poll reconnects and re-resolves: GetAllNodeInfo (empty request) for tables with
// names, GetAllNodeAddressAndLiveness{ALIVE} for light polls where the GCS has it (Ray ≈2.51+;
// an UNIMPLEMENTED answer is remembered for the channel and the poll falls back at once).
class GcsNodeSource final : public NodeSource {
 public:
  GcsNodeSource(std::string target, Credentials credentials);

  util::Result<NodeTable, RpcError> poll(std::chrono::milliseconds timeout, std::stop_token stop) override;
  util::Result<NodeTable, RpcError> poll_light(std::chrono::milliseconds timeout, std::stop_token stop) override;
  void reset() override { m_client.reset_channel(); }
  std::string describe() const override { return "GCS at " + m_client.target(); }

 private:
  GcsClient m_client;
  bool m_said_fallback = false;
};

}  // namespace launcher::gcs
