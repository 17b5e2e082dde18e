#include "pod_facts.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "error.hpp"
#include "util/host_fs.hpp"

namespace launcher {

namespace {

void require_readable_root(const Config& config) {
  const std::string& root = config.host_root;
  if (access(root.c_str(), R_OK | X_OK) != 0) {
    throw Fatal(exit_code::usage, bad_setting(config.source_of("host_root"), root,
                                              std::string("a readable directory; ") + std::strerror(errno)));
  }
}

void settle_hostname(const Config& config, const EnvMap& env, PodFacts& facts) {
  if (config.hostname) {
    facts.hostname = *config.hostname;
    facts.hostname_source = "--hostname";
  } else if (auto h = env.find("HOSTNAME"); h != env.end() && !h->second.empty()) {
    facts.hostname = h->second;
    facts.hostname_source = "HOSTNAME";
  } else {
    std::array<char, 256> buf{};
    if (gethostname(buf.data(), buf.size() - 1) == 0) {
      facts.hostname = buf.data();
    }
    facts.hostname_source = "gethostname()";
  }
  if (facts.hostname.empty()) {
    throw Fatal(exit_code::usage, "hostname: empty (pass --hostname or set HOSTNAME)");
  }
}

}  // namespace

PodFacts gather_identity_facts(const Config& config, const EnvMap& env) {
  require_readable_root(config);
  PodFacts facts;
  facts.env = env;
  settle_hostname(config, env, facts);
  const util::HostFs fs(config.host_root);
  facts.etc_hosts = fs.read("/etc/hosts").value_or("");
  facts.resolv_conf = fs.read("/etc/resolv.conf").value_or("");
  return facts;
}

PodFacts gather_pod_facts(const Config& config, const EnvMap& env) {
  PodFacts facts = gather_identity_facts(config, env);
  facts.node = gather_node_facts(config.host_root);
  return facts;
}

}  // namespace launcher
