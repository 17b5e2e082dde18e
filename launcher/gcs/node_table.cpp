#include "gcs/node_table.hpp"

#include <algorithm>
#include <string_view>

#include "ray_gcs.pb.h"
#include "util/strings.hpp"

namespace launcher::gcs {

const std::string& NodeEntry::pod_key() const {
  // Ray defaults node_name to the node IP (scripts.py --node-name); raylaunch passes the pod
  // hostname, which survives a pod restart while the IP and the NodeID do not.
  if (!node_name.empty()) {
    return node_name;
  }
  return address.empty() ? node_id_hex : address;
}

std::string to_hex(const std::string& bytes) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = k_digits[b >> 4];
    out[2 * i + 1] = k_digits[b & 0x0f];
  }
  return out;
}

namespace {

std::string death_reason(const ray::rpc::GcsNodeInfo& info) {
  if (!info.has_death_info()) {
    return "";
  }
  const ray::rpc::NodeDeathInfo& death = info.death_info();
  std::string text = ray::rpc::NodeDeathInfo_Reason_Name(death.reason());
  if (text.empty()) {
    text = "reason " + std::to_string(death.reason());  // a reason newer than our proto
  }
  if (!death.reason_message().empty()) {
    text += ": " + death.reason_message();
  }
  return text;
}

}  // namespace

NodeTable node_table_from_reply(const ray::rpc::GetAllNodeInfoReply& reply) {
  NodeTable table;
  table.total = reply.total();
  table.nodes.reserve(static_cast<std::size_t>(reply.node_info_list_size()));
  for (const ray::rpc::GcsNodeInfo& info : reply.node_info_list()) {
    NodeEntry e;
    e.node_id_hex = to_hex(info.node_id());
    e.node_name = info.node_name();
    e.address = info.node_manager_address();
    e.node_manager_port = info.node_manager_port();
    // Only ALIVE (0) counts; DEAD (1) and any state a future Ray might add do not.
    e.alive = info.state() == ray::rpc::GcsNodeInfo::ALIVE;
    e.is_head = info.is_head_node();
    e.start_time_ms = info.start_time_ms();
    e.end_time_ms = info.end_time_ms();
    e.death_reason = death_reason(info);
    table.nodes.push_back(std::move(e));
  }
  return table;
}

NodeTable node_table_from_light_reply(const ray::rpc::GetAllNodeAddressAndLivenessReply& reply) {
  NodeTable table;
  table.has_names = false;
  table.nodes.reserve(static_cast<std::size_t>(reply.node_info_list_size()));
  for (const ray::rpc::GcsNodeAddressAndLiveness& info : reply.node_info_list()) {
    NodeEntry e;
    e.node_id_hex = to_hex(info.node_id());
    e.address = info.node_manager_address();
    e.node_manager_port = info.node_manager_port();
    e.alive = info.state() == ray::rpc::GcsNodeInfo::ALIVE;
    table.nodes.push_back(std::move(e));
  }
  return table;
}

AliveCount count_alive(const NodeTable& table, const std::vector<std::string>& expected) {
  AliveCount count;
  // Sorted pod keys of ALIVE rows: duplicates are adjacent. (A sort of 4,096 views costs less
  // than a std::map of 4,096 strings; this runs on every poll.)
  std::vector<std::string_view> keys;
  keys.reserve(table.nodes.size());
  for (const NodeEntry& e : table.nodes) {
    if (e.alive) {
      keys.emplace_back(e.pod_key());
    } else {
      ++count.dead_entries;
    }
  }
  count.alive_entries = static_cast<int>(keys.size());
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0 && keys[i] == keys[i - 1]) {
      if (count.duplicated.empty() || count.duplicated.back() != keys[i]) {
        count.duplicated.emplace_back(keys[i]);
      }
      continue;
    }
    count.alive_pods.emplace_back(keys[i]);
  }
  if (!expected.empty() && table.has_names) {
    for (const std::string& name : expected) {
      if (!std::binary_search(keys.begin(), keys.end(), std::string_view(name))) {
        count.missing.push_back(name);
      }
    }
    std::vector<std::string_view> wanted(expected.begin(), expected.end());
    std::sort(wanted.begin(), wanted.end());
    for (const std::string& pod : count.alive_pods) {
      if (!std::binary_search(wanted.begin(), wanted.end(), std::string_view(pod))) {
        count.unexpected.push_back(pod);
      }
    }
  }
  return count;
}

std::string name_list(const std::vector<std::string>& names, std::size_t max_names) {
  std::string out;
  const std::size_t shown = std::min(names.size(), max_names);
  for (std::size_t i = 0; i < shown; ++i) {
    out += (i == 0 ? "" : ", ") + util::printable(names[i], 128);
  }
  if (names.size() > shown) {
    out += " and " + std::to_string(names.size() - shown) + " more";
  }
  return out;
}

std::string progress_line(const AliveCount& count, int wanted, std::size_t max_names) {
  std::string line = std::to_string(count.distinct_alive()) + "/" + std::to_string(wanted) + " nodes alive";
  // A pod is missing only while too few are alive: once `wanted` are, an expected name without a
  // row belongs to a node that registered under another name (a `ray start` without
  // --node-name=<pod>: Ray names it after its IP), and "1/1 nodes alive; missing: training-0"
  // would say what did not happen.
  if (!count.missing.empty() && count.distinct_alive() < wanted) {
    line += "; missing: " + name_list(count.missing, max_names);
  }
  if (!count.duplicated.empty()) {
    line += "; counted once despite a stale ALIVE entry: " + name_list(count.duplicated, max_names);
  }
  if (!count.unexpected.empty()) {
    line += "; alive under other names: " + name_list(count.unexpected, max_names);
  }
  return line;
}

}  // namespace launcher::gcs
