#include "gcs/gcs_node_source.hpp"

#include <spdlog/spdlog.h>

namespace launcher::gcs {

GcsNodeSource::GcsNodeSource(std::string target, Credentials credentials)
    : m_client(std::move(target), std::move(credentials)) {}

util::Result<NodeTable, RpcError> GcsNodeSource::poll(std::chrono::milliseconds timeout, std::stop_token stop) {
  return m_client.get_all_node_info(timeout, std::move(stop));
}

util::Result<NodeTable, RpcError> GcsNodeSource::poll_light(std::chrono::milliseconds timeout, std::stop_token stop) {
  if (!m_client.light_unsupported()) {
    auto light = m_client.get_alive_node_addresses(timeout, stop);
    if (light || !light.error().unimplemented()) {
      return light;
    }
    if (!m_said_fallback) {
      m_said_fallback = true;
      spdlog::debug("{} has no GetAllNodeAddressAndLiveness (Ray < 2.51): polling GetAllNodeInfo", describe());
    }
  }
  return m_client.get_all_node_info(timeout, std::move(stop));
}

}  // namespace launcher::gcs
