#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "settings.hpp"

namespace launcher {

// One function per subcommand; each returns the process exit code (see exit_codes.hpp).
int cmd_version();
int cmd_plan(const Config& config, const EnvMap& env, const std::vector<std::string>& command);

}  // namespace launcher
