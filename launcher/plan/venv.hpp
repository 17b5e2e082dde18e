#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/env_var.hpp"
#include "plan/pod_facts.hpp"

namespace launcher {

// A virtualenv made active the way `source <venv>/bin/activate` would, without a shell:
// PATH gets <venv>/bin first and VIRTUAL_ENV names the venv, so `ray` and `python3` in the
// launch command are the venv's (RLinf images activate theirs only in ~/.bashrc, which an
// exec'd argv never reads). Empty without --venv. Throws Fatal(64) when <venv>/bin is missing.
std::vector<EnvVar> venv_env(const Config& config, const PodFacts& facts);

// The PATH `ray start` and the command run with: <venv>/bin first when there is a venv, then the
// pod's PATH, or the one a container starts with when the image sets none (runc's default).
std::string child_path(const std::optional<std::string>& venv, const EnvMap& env);

}  // namespace launcher
