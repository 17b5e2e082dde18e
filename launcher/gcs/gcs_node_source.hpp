#pragma once
#include <optional>
#include <string>

#include "gcs/gcs_client.hpp"
#include "gcs/join_barrier.hpp"

namespace launcher::gcs {

// The barrier's production NodeSource: GetAllNodeInfo (empty request) on one reused channel,
// dropped after a transport failure so the next poll reconnects and re-resolves.
class GcsNodeSource final : public NodeSource {
 public:
  GcsNodeSource(std::string target, std::optional<AuthToken> token) : m_client(std::move(target), std::move(token)) {}

  util::Result<NodeTable, RpcError> poll(std::chrono::milliseconds timeout, std::stop_token stop) override {
    return m_client.get_all_node_info(timeout, std::move(stop));
  }
  void reset() override { m_client.reset_channel(); }
  std::string describe() const override { return "GCS at " + m_client.target(); }

 private:
  GcsClient m_client;
};

}  // namespace launcher::gcs
