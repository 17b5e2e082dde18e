#pragma once
#include <chrono>
#include <map>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "settings.hpp"

namespace launcher {

enum class ChecksPolicy { strict, warn, off };
enum class OutputFormat { text, json };
enum class LogFormat { text, json };

const char* to_string(ChecksPolicy p);

// Typed, validated settings. Optional fields were not given; their defaults depend on pod
// facts and are settled by the planner, which reports where each value came from.
struct Config {
  int nodes = 1;
  std::optional<int> ordinal;
  std::string ordinal_source;  // "--ordinal" or "RAYLAUNCH_ORDINAL" when `ordinal` is set
  std::optional<std::string> hostname;
  std::optional<std::string> namespace_name;
  std::optional<std::string> service;
  std::optional<std::string> cluster_domain;
  std::optional<std::string> head_address;
  int ray_port = 6379;          // Ray's DEFAULT_PORT (python/ray/_private/ray_constants.py)
  int node_manager_port = 6380; // ours: Ray's default is 0 (random), which no probe can find
  std::chrono::milliseconds join_timeout{300'000};
  std::string ray = "ray";
  std::vector<std::string> ray_args;
  std::optional<std::uint64_t> object_store_memory;
  ChecksPolicy checks = ChecksPolicy::strict;
  std::optional<int> gpus;
  std::optional<int> efa;
  std::optional<std::uint64_t> shm_min;
  std::string host_root = "/";
  std::optional<std::string> address;
  std::chrono::milliseconds probe_timeout{1000};
  OutputFormat output = OutputFormat::text;
  LogFormat log_format = LogFormat::text;
  std::string log_level = "info";

  // Where each given setting came from ("--nodes" or "RAYLAUNCH_NODES"), for messages.
  std::map<std::string, std::string> sources;
  std::string source_of(const std::string& key) const;
};

// Parses every raw setting; collects *all* problems, then throws one Fatal(exit 64) whose
// lines each name the setting, its source, the bad value and what is expected.
Config parse_config(const RawSettings& raw);

}  // namespace launcher
