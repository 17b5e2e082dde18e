#pragma once
#include <string>

namespace launcher {

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
