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

// The versions of the Ray install `ray start` would run, read from its files without running
// Python (a worker compares them with its head's before `ray start`, as Ray's own
// check_version_info would after it): Ray's from the `ray-<version>.dist-info` directory in the
// interpreter's site-packages (pip's record of the installed wheel), Python's from the
// virtualenv's pyvenv.cfg (`version = 3.11.2`, or uv's and virtualenv's `version_info`), else
// only major.minor from the interpreter's name (python3.11): a system interpreter's patch level
// is inside its binary only. "" where unknown; `source` says where each came from, or why not.
struct InstalledRay {
  std::string ray;     // "2.60.0"
  std::string python;  // "3.11.2", or "3.11" (see above), or ""
  std::string source;  // "/opt/venv/lib/python3.11/site-packages/ray-2.60.0.dist-info, /opt/venv/pyvenv.cfg"
};

// `interpreter`: the `#!` interpreter of the `ray` script (pip writes the absolute path of the
// interpreter it installed for). An interpreter found through /usr/bin/env is not followed.
InstalledRay read_installed_ray(const std::string& interpreter);

}  // namespace launcher
