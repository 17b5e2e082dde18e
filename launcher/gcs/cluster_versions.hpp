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
  bool mismatch = false;  // a failed node check: Ray would refuse this node
  bool warning = false;   // not refused, but the line is a warning (a patch-only difference)
  std::string line;       // mismatch: both versions named and the fix; else what was compared, or why not
};

// Ray's own rule (check_version_info) where files can tell: the Ray versions equal, Python's
// major.minor equal. Python's patch level is only warned about, whatever `level`: this image's
// comes from pyvenv.cfg, written once when the virtualenv was made, so after an in-place upgrade
// of its interpreter (or a virtualenv copied onto a newer base) it is stale, and refusing on it
// would refuse a node Ray accepts; Ray itself compares the running interpreter's after `ray
// start` (to `level`). A part `mine` does not know ("", or a version without its patch level) is
// not compared, and the line says so.
VersionCheck compare_versions(const RayVersions& head, const RayVersions& mine, const std::string& mine_source,
                              PythonMatch level);

}  // namespace launcher::gcs
