#include "gcs/light_facts.hpp"

#include <unistd.h>

#include <array>

#include "error.hpp"
#include "util/host_fs.hpp"

namespace launcher::gcs {

PodFacts gather_light_facts(const Config& config, const EnvMap& env) {
  PodFacts facts;
  facts.env = env;
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
  const util::HostFs fs(config.host_root);
  facts.etc_hosts = fs.read("/etc/hosts").value_or("");
  facts.resolv_conf = fs.read("/etc/resolv.conf").value_or("");
  return facts;
}

}  // namespace launcher::gcs
