#include "gcs/cluster_versions.hpp"

#include <algorithm>

#include "gcs/cluster_rpcs.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// usage_constants.py CLUSTER_METADATA_KEY, ray_constants.py KV_NAMESPACE_CLUSTER.
constexpr const char* k_metadata_key = "CLUSTER_METADATA";
constexpr const char* k_metadata_namespace = "cluster";
constexpr std::size_t k_max_version = 64;  // what a version string may take in a message

std::string major_minor(const std::string& version) {
  const auto first = version.find('.');
  if (first == std::string::npos) {
    return version;
  }
  return version.substr(0, version.find('.', first + 1));
}

// "3.11.2" has one; "3.11" (read from an interpreter's name) does not.
bool has_patch(const std::string& version) {
  return std::count(version.begin(), version.end(), '.') >= 2;
}

std::string versions_text(const RayVersions& v) {
  return "Ray " + (v.ray.empty() ? std::string("?") : v.ray) + " and Python " +
         (v.python.empty() ? std::string("?") : v.python);
}

}  // namespace

HeadVersions parse_cluster_metadata(const std::string& json) {
  HeadVersions out;
  const util::Json doc = util::Json::parse(json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    out.problem = "the head's cluster metadata is not JSON";
    return out;
  }
  const auto ray = doc.find("ray_version");
  const auto python = doc.find("python_version");
  if (ray == doc.end() || python == doc.end() || !ray->is_string() || !python->is_string()) {
    out.problem = "the head's cluster metadata has no ray_version and python_version";
    return out;
  }
  out.versions = RayVersions{util::printable(ray->get<std::string>(), k_max_version),
                             util::printable(python->get<std::string>(), k_max_version)};
  return out;
}

util::Result<HeadVersions, RpcError> read_head_versions(GcsClient& client, std::chrono::milliseconds timeout,
                                                        std::stop_token stop) {
  using R = util::Result<HeadVersions, RpcError>;
  const auto value = kv_get(client, k_metadata_key, k_metadata_namespace, timeout, std::move(stop));
  if (!value) {
    return R::failure(value.error());
  }
  if (!value.value()) {
    HeadVersions none;
    none.problem = "the head's GCS has no cluster metadata (not written yet, or a release that does not write it)";
    none.not_written = true;
    return none;
  }
  return parse_cluster_metadata(*value.value());
}

PythonMatch python_match(std::string_view env_value) {
  return env_value == "minor" ? PythonMatch::minor : PythonMatch::patch;
}

VersionCheck compare_versions(const RayVersions& head, const RayVersions& mine, const std::string& mine_source,
                              PythonMatch level) {
  VersionCheck c;
  const bool ray_differs = !mine.ray.empty() && mine.ray != head.ray;
  const bool minor_differs = !mine.python.empty() && major_minor(mine.python) != major_minor(head.python);
  if (ray_differs || minor_differs) {
    c.mismatch = true;
    c.line = "this worker has " + versions_text(mine) + " (" + mine_source + "), the head " + versions_text(head) +
             ": Ray refuses a node whose versions differ from the head's (fix: the same image, or the same "
             "RAYLAUNCH_VENV, on every pod of the cluster)";
    return c;
  }
  c.line = versions_text(mine) + " as on the head";
  if (mine.ray.empty() || mine.python.empty()) {
    c.line += " (" + std::string(mine.ray.empty() ? "Ray's" : "Python's") + " version not compared: " + mine_source +
              ")";
  } else if (!has_patch(mine.python)) {
    c.line += " (Python's patch level not compared: only " + mine.python + " is known here, " + mine_source + ")";
  } else if (mine.python != head.python && level == PythonMatch::minor) {
    c.line += " (Python's patch level differs: " + mine.python + " here, " + head.python +
              " on the head; RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor allows it)";
  } else if (mine.python != head.python) {
    c.warning = true;
    c.line = "Python's patch level differs: " + mine.python + " here (" + mine_source + "), " + head.python +
             " on the head. Not refused: a virtualenv's pyvenv.cfg keeps the version it was made with, so an "
             "interpreter upgraded in place since (or a virtualenv copied onto a newer base) still reads as the "
             "old one. Ray compares the running interpreter's and refuses the node after ray start if they "
             "really differ (fix: the same Python on every pod, or RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor "
             "on the workers for Ray to accept it)";
  }
  return c;
}

}  // namespace launcher::gcs
