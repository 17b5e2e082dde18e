#include "plan/venv.hpp"

#include "util/env_map.hpp"
#include "util/fatal.hpp"

namespace launcher {

std::string child_path(const std::optional<std::string>& venv, const EnvMap& env) {
  // The PATH a container starts with when the image sets none (runc's default).
  const std::string user_path = util::env_value(env, "PATH");
  const std::string path = user_path.empty() ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : user_path;
  return venv ? *venv + "/bin:" + path : path;
}

std::vector<EnvVar> venv_env(const Config& config, const PodFacts& facts) {
  if (!config.venv) {
    return {};
  }
  const std::string& venv = *config.venv;
  if (!facts.venv_has_bin) {
    throw Fatal(exit_code::usage, bad_setting(config.source_of(&Config::venv), venv,
                                              "a virtualenv directory with a bin/ directory; " + venv +
                                                  "/bin does not exist in this image"));
  }
  return {
      {"PATH", child_path(config.venv, facts.env), Origin::raylaunch,
       "the venv's bin first, as its activate script does: `ray` and `python3` are the venv's"},
      {"VIRTUAL_ENV", venv, Origin::raylaunch, "the active virtualenv, as its activate script sets it"},
  };
}

}  // namespace launcher
