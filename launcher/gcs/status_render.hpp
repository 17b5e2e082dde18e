#pragma once
#include <string>

#include "gcs/node_table.hpp"

namespace launcher::gcs {

// For people: one row per node (ALIVE first, head first, then by name with numeric suffixes in
// numeric order), then "4 alive (4 distinct pods), 1 dead".
std::string render_status_text(const NodeTable& table, const std::string& address);

// Stable JSON (documented in README.md, "raylaunch status"): {"address", "alive" (distinct ALIVE pods, what
// `wait` counts), "alive_entries", "dead", "total", "nodes": [{"node_name", "address",
// "node_manager_port", "state" ALIVE|DEAD, "is_head", "node_id", "start_time_ms",
// "end_time_ms", "death_reason"}]}; rows in the same order as the text.
std::string render_status_json(const NodeTable& table, const std::string& address);

// `status --count`: the count of ALIVE pods alone, as `wait` counts them: once per node_name, so a
// restarted pod whose old row is still ALIVE counts once. A table without names (the light RPC's)
// can only be counted by IP, which counts such a pod twice; `status` never renders one, and says
// "counted by node address" if a caller does. Text: "3 alive (4 ALIVE rows, counted by node name;
// counted once despite a stale ALIVE row: training-1)\n"; JSON: {"address", "alive",
// "alive_entries", "counted_by": "node_name"|"address"}.
std::string render_status_count(const NodeTable& table, const std::string& address, bool json);

// "2026-11-30T05:48:15Z" for Unix milliseconds; "-" for 0 (not set).
std::string format_time_ms(std::uint64_t ms);

}  // namespace launcher::gcs
