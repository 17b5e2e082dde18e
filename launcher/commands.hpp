#pragma once
#include <string>
#include <vector>

#include "config.hpp"
#include "settings.hpp"

namespace launcher {

// One function per subcommand; each returns the process exit code (see exit_codes.hpp).
int cmd_version();
int cmd_plan(const Config& config, const EnvMap& env, const std::vector<std::string>& command);
// GCS subcommands (docs/gcs.md): `what` is "nodes" or "head"; `kind` "liveness" or "readiness".
int cmd_wait(const std::string& what, const Config& config, const EnvMap& env);
int cmd_status(const Config& config, const EnvMap& env);
int cmd_probe(const std::string& kind, const Config& config, const EnvMap& env);

}  // namespace launcher
