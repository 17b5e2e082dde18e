#pragma once
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "gcs/gcs_client.hpp"
#include "util/result.hpp"

namespace launcher::gcs {

// A Ray install's versions, as Ray compares them: ray.__version__ ("2.60.0") and Python's
// major.minor.patch ("3.11.2"; compute_version_info, ray/_private/utils.py). "" where unknown.
struct RayVersions {
  std::string ray;
  std::string python;
};

// The head's versions from the cluster metadata its `ray start --head` writes to the GCS's KV
// store (key CLUSTER_METADATA, namespace "cluster"; JSON with ray_version and python_version,
// written whatever the usage-stats setting: usage_lib.py put_cluster_metadata, Ray 2.9.3 …
// 2.60.0). nullopt, with `problem` saying why, when the key is not there (a release that does
// not write it) or its value is not that JSON.
struct HeadVersions {
  std::optional<RayVersions> versions;
  std::string problem;
  bool not_written = false;  // no key at all: the head's `ray start` writes it just after its GCS starts
};
util::Result<HeadVersions, RpcError> read_head_versions(GcsClient& client, std::chrono::milliseconds timeout,
                                                        std::stop_token stop);

// The parse alone (a lying server's value included): pure.
HeadVersions parse_cluster_metadata(const std::string& json);

// How much of Python's version must match: Ray's RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL ("patch",
// the default, or "minor"; read by Ray 2.5x+, older releases compare the patch level).
enum class PythonMatch { patch, minor };
PythonMatch python_match(std::string_view env_value);

struct VersionCheck {
  bool mismatch = false;
  std::string line;  // mismatch: both versions named and the fix; else what was compared, or why not
};

// Ray's own rule (check_version_info): the Ray versions equal, and Python's to `level`. A part
// `mine` does not know ("") is not compared, and the line says so.
VersionCheck compare_versions(const RayVersions& head, const RayVersions& mine, const std::string& mine_source,
                              PythonMatch level);

}  // namespace launcher::gcs
