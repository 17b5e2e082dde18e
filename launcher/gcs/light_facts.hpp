#pragma once
#include "config.hpp"
#include "pod_facts.hpp"
#include "settings.hpp"

namespace launcher::gcs {

// The part of PodFacts that resolve_identity() reads (env, hostname, /etc/hosts,
// /etc/resolv.conf), without the node scan of /sys and /dev: probes run every few seconds and
// must cost milliseconds. `node` is left empty. The hostname follows gather_pod_facts' rules:
// --hostname, else HOSTNAME, else gethostname(); Fatal(64) when all are empty.
// (Lead: this could move next to gather_pod_facts as gather_identity_facts.)
PodFacts gather_light_facts(const Config& config, const EnvMap& env);

}  // namespace launcher::gcs
