#pragma once
#include <optional>
#include <string>

namespace launcher {

// The Ray release installed where `ray start` will run, as pip recorded it: the `Version:` line of
// the package's metadata, ray-<version>.dist-info/METADATA in the site-packages (or Debian's
// dist-packages) of the prefix the `ray` script lives in (<venv>/bin/ray → <venv>/lib/python3.X/
// site-packages). Read before anything starts, without running Python or `ray --version` (a
// second or more of CPU on a pod's start): a few directory listings and one small file.
struct RayInstall {
  std::string version;   // "2.40.0"
  std::string metadata;  // the METADATA file it came from, for messages
  int major = 0;
  int minor = 0;

  bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};

// `ray` as the ray setting names it (a path, or a name looked up in `path`, a PATH value);
// nullopt when the script or its metadata is not found where pip puts them.
std::optional<RayInstall> find_ray_install(const std::string& ray, const std::string& path);

// "Version: 2.40.0" → {2, 40}; nullopt for anything that is not <digits>.<digits>[...].
std::optional<RayInstall> parse_ray_metadata(const std::string& metadata_text, const std::string& where);

}  // namespace launcher
