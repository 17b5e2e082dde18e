#include "gcs/status_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "util/json.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// "training-2" before "training-10": compare the text before a trailing number, then the number.
bool natural_less(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    std::size_t i = s.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0) {
      --i;
    }
    const std::string digits = s.substr(i);
    const unsigned long long n = digits.empty() || digits.size() > 18 ? 0 : std::stoull(digits);
    return std::make_pair(s.substr(0, i), n);
  };
  const auto sa = split(a);
  const auto sb = split(b);
  return sa != sb ? sa < sb : a < b;
}

std::vector<const NodeEntry*> ordered(const NodeTable& table) {
  std::vector<const NodeEntry*> rows;
  rows.reserve(table.nodes.size());
  for (const NodeEntry& e : table.nodes) {
    rows.push_back(&e);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const NodeEntry* a, const NodeEntry* b) {
    if (a->alive != b->alive) {
      return a->alive;
    }
    if (a->is_head != b->is_head) {
      return a->is_head;
    }
    return natural_less(a->pod_key(), b->pod_key());
  });
  return rows;
}

}  // namespace

std::string format_time_ms(std::uint64_t ms) {
  if (ms == 0) {
    return "-";
  }
  const auto secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

std::string render_status_text(const NodeTable& table, const std::string& address) {
  const AliveCount count = count_alive(table, {});
  const auto rows = ordered(table);
  std::size_t name_width = 9;
  std::size_t addr_width = 7;
  // Names and addresses come from the GCS: escaped, so no byte of theirs reaches the terminal raw.
  for (const NodeEntry* e : rows) {
    name_width = std::max(name_width, util::printable(e->node_name).size());
    addr_width = std::max(addr_width, util::printable(e->address).size() + 6);
  }
  std::string out = fmt::format("GCS {}\n", address);
  out += fmt::format("{:<{}}  {:<{}}  {:<5}  {:<4}  {:<56}  {:<20}  {}\n", "NODE NAME", name_width, "ADDRESS",
                     addr_width, "STATE", "HEAD", "NODE ID", "STARTED", "DIED");
  for (const NodeEntry* e : rows) {
    const std::string addr = util::printable(e->address) + ":" + std::to_string(e->node_manager_port);
    std::string died = e->alive ? "" : format_time_ms(e->end_time_ms);
    if (!e->death_reason.empty()) {
      died += " (" + util::printable(e->death_reason) + ")";
    }
    out += fmt::format("{:<{}}  {:<{}}  {:<5}  {:<4}  {:<56}  {:<20}  {}", util::printable(e->node_name), name_width,
                       addr, addr_width, e->alive ? "ALIVE" : "DEAD", e->is_head ? "yes" : "no", e->node_id_hex,
                       format_time_ms(e->start_time_ms), died);
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    out += '\n';
  }
  out +=
      fmt::format("{} alive ({} ALIVE rows), {} dead", count.distinct_alive(), count.alive_entries, count.dead_entries);
  if (!count.duplicated.empty()) {
    out += "; counted once despite a stale ALIVE row: " + name_list(count.duplicated, 10);
  }
  out += '\n';
  return out;
}

std::string render_status_count(const NodeTable& table, const std::string& address, bool json) {
  const AliveCount count = count_alive(table, {});
  const char* by = table.has_names ? "node_name" : "address";
  if (!json) {
    std::string text = fmt::format("{} alive ({} ALIVE rows, counted by {}", count.distinct_alive(),
                                   count.alive_entries, table.has_names ? "node name" : "node address");
    if (!count.duplicated.empty()) {
      text += "; counted once despite a stale ALIVE row: " + name_list(count.duplicated, 10);
    }
    return text + ")\n";
  }
  util::Json doc;
  doc["address"] = address;
  doc["alive"] = count.distinct_alive();
  doc["alive_entries"] = count.alive_entries;
  doc["counted_by"] = by;
  return util::json_text(doc) + "\n";
}

std::string render_status_json(const NodeTable& table, const std::string& address) {
  const AliveCount count = count_alive(table, {});
  util::Json doc;
  doc["address"] = address;
  doc["alive"] = count.distinct_alive();
  doc["alive_entries"] = count.alive_entries;
  doc["dead"] = count.dead_entries;
  doc["total"] = table.total > 0 ? table.total : static_cast<std::int64_t>(table.nodes.size());
  util::Json& nodes = doc["nodes"] = util::Json::array();
  for (const NodeEntry* e : ordered(table)) {
    nodes.push_back({{"node_name", e->node_name},
                     {"address", e->address},
                     {"node_manager_port", e->node_manager_port},
                     {"state", e->alive ? "ALIVE" : "DEAD"},
                     {"is_head", e->is_head},
                     {"node_id", e->node_id_hex},
                     {"start_time_ms", e->start_time_ms},
                     {"end_time_ms", e->end_time_ms},
                     {"death_reason", e->death_reason}});
  }
  return util::json_text(doc) + "\n";
}

}  // namespace launcher::gcs
