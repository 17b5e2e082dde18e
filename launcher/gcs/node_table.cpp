#include "gcs/node_table.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ray_gcs.pb.h"

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
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += k_digits[b >> 4];
    out += k_digits[b & 0x0f];
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

util::Result<NodeTable> node_table_from_reply(const ray::rpc::GetAllNodeInfoReply& reply) {
  if (reply.status().code() != 0) {
    return util::Result<NodeTable>::failure("GCS replied with status " + std::to_string(reply.status().code()) +
                                            ": " + reply.status().message());
  }
  NodeTable table;
  table.total = reply.total();
  table.reply_bytes = reply.ByteSizeLong();
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

AliveCount count_alive(const NodeTable& table, const std::vector<std::string>& expected) {
  AliveCount count;
  std::map<std::string, int> rows_per_pod;
  for (const NodeEntry& e : table.nodes) {
    if (e.alive) {
      ++count.alive_entries;
      ++rows_per_pod[e.pod_key()];
    } else {
      ++count.dead_entries;
    }
  }
  for (const auto& [pod, rows] : rows_per_pod) {
    count.alive_pods.push_back(pod);
    if (rows > 1) {
      count.duplicated.push_back(pod);
    }
  }
  if (!expected.empty()) {
    const std::set<std::string> wanted(expected.begin(), expected.end());
    for (const std::string& name : expected) {
      if (rows_per_pod.count(name) == 0) {
        count.missing.push_back(name);
      }
    }
    for (const std::string& pod : count.alive_pods) {
      if (wanted.count(pod) == 0) {
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
    out += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > shown) {
    out += " and " + std::to_string(names.size() - shown) + " more";
  }
  return out;
}

std::string progress_line(const AliveCount& count, int wanted, std::size_t max_names) {
  std::string line = std::to_string(count.distinct_alive()) + "/" + std::to_string(wanted) + " nodes alive";
  if (!count.missing.empty()) {
    line += "; missing: " + name_list(count.missing, max_names);
  }
  if (!count.duplicated.empty()) {
    line += "; counted once despite a stale ALIVE entry: " + name_list(count.duplicated, max_names);
  }
  if (!count.unexpected.empty()) {
    line += "; also alive: " + name_list(count.unexpected, max_names);
  }
  return line;
}

}  // namespace launcher::gcs
