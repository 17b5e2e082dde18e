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

// "2026-11-30T05:48:15Z" for Unix milliseconds; "-" for 0 (not set).
std::string format_time_ms(std::uint64_t ms);

}  // namespace launcher::gcs
