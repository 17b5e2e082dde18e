#include "plan/pod_facts.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "plan/ray_env.hpp"
#include "util/fatal.hpp"
#include "util/host_fs.hpp"

namespace launcher {

namespace {

void require_root_dir(const Config& config) {
  const std::string& root = config.host_root;
  struct stat st {};
  std::string why;
  if (::stat(root.c_str(), &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISDIR(st.st_mode)) {
    why = "not a directory";
  } else if (::access(root.c_str(), R_OK | X_OK) != 0) {
    why = std::strerror(errno);
  }
  if (!why.empty()) {
    throw Fatal(exit_code::usage,
                bad_setting(config.source_of(&Config::host_root), root, "a readable directory; " + why));
  }
}

void settle_hostname(const Config& config, PodFacts& facts) {
  // HOSTNAME is the hostname setting's environment twin: Config already holds it, with its
  // true source. Only with neither does the kernel's name count (and it must look like a pod's).
  if (config.hostname) {
    facts.hostname = *config.hostname;
    facts.hostname_source = config.source_of(&Config::hostname);
    return;
  }
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) == 0) {
    facts.hostname = buf.data();
  }
  facts.hostname_source = "gethostname()";
  if (facts.hostname.empty()) {
    throw Fatal(exit_code::usage, "hostname: empty (pass --hostname or set HOSTNAME)");
  }
}

}  // namespace

PodFacts gather_identity_facts(const Config& config, const EnvMap& env, const std::string& etc_root) {
  PodFacts facts;
  facts.env = env;
  settle_hostname(config, facts);
  const util::HostFs fs(etc_root);
  facts.etc_hosts = fs.read("/etc/hosts").value_or("");
  facts.resolv_conf = fs.read("/etc/resolv.conf").value_or("");
  return facts;
}

PodFacts gather_pod_facts(const Config& config, const EnvMap& env, const util::ProcessLimits& limits) {
  require_root_dir(config);
  PodFacts facts = gather_identity_facts(config, env, config.host_root);
  facts.node = gather_node_facts(config.host_root);
  facts.limits = limits;
  if (config.venv) {
    struct stat st {};
    facts.venv_has_bin = ::stat((*config.venv + "/bin").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }
  // REDIS_USERNAME (ray start --redis-username, 2.41+) and the node labels' --labels syntax depend on it.
  if ((config.redis_address && config.redis_username) || config.default_labels || !config.node_labels.empty()) {
    facts.ray_install = find_ray_install(config.ray, child_path(config.venv, env));  // `ray` as `run` finds it
  }
  return facts;
}

}  // namespace launcher
