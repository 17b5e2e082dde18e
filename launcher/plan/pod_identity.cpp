#include "plan/pod_identity.hpp"

#include <optional>
#include <sstream>

#include "net/host_port.hpp"
#include "util/fatal.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

std::optional<int> ordinal_suffix(std::string_view hostname) {
  const auto dash = hostname.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == hostname.size()) {
    return std::nullopt;
  }
  const std::string_view digits = hostname.substr(dash + 1);
  if (digits.size() > 1 && digits.front() == '0') {
    return std::nullopt;
  }
  const auto n = util::parse_int(digits, 0, 99'999);
  if (!n) {
    return std::nullopt;
  }
  return static_cast<int>(*n);
}

std::string base_name(const std::string& hostname) {
  return ordinal_suffix(hostname) ? hostname.substr(0, hostname.rfind('-')) : hostname;
}

std::vector<std::string> pod_names(const std::string& base, int nodes) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(nodes > 0 ? nodes : 0));
  for (int i = 0; i < nodes; ++i) {
    names.push_back(base + "-" + std::to_string(i));
  }
  return names;
}

const char* to_string(Role r) { return r == Role::head ? "head" : "worker"; }

std::vector<std::string> PodIdentity::expected_node_names() const {
  // A one-node job is just this pod, whatever its name looks like.
  if (nodes == 1) {
    return {hostname};
  }
  return workload_pods ? *workload_pods : pod_names(base_name, nodes);
}

std::string PodIdentity::head_address() const { return net::HostPort{head_host, head_port}.text(); }

namespace {

// The kubelet writes "<ip> <hostname>.<subdomain>.<ns>.svc.<domain> <hostname>" into
// /etc/hosts for pods with a subdomain (StatefulSet pods get one from serviceName).
// Returns the FQDN's labels after the hostname: {subdomain, ns, "svc", domain...}.
std::optional<std::vector<std::string>> own_fqdn_labels(const std::string& etc_hosts, const std::string& hostname) {
  std::istringstream lines(etc_hosts);
  std::string line;
  const std::string prefix = hostname + ".";
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find('#'));
    for (const std::string& name : util::split_words(line)) {
      if (!name.starts_with(prefix)) {
        continue;
      }
      std::vector<std::string> labels;
      std::istringstream parts(name.substr(prefix.size()));
      std::string label;
      while (std::getline(parts, label, '.')) {
        labels.push_back(label);
      }
      if (labels.size() >= 4 && labels[2] == "svc") {
        return labels;
      }
    }
  }
  return std::nullopt;
}

std::string join_from(const std::vector<std::string>& labels, std::size_t first) {
  return util::join(std::vector<std::string>(labels.begin() + static_cast<std::ptrdiff_t>(first), labels.end()), ".");
}

// "search ml.svc.cluster.local svc.cluster.local cluster.local" → "cluster.local" for ns "ml".
std::optional<std::string> domain_from_resolv_conf(const std::string& resolv_conf, const std::string& ns) {
  std::istringstream lines(resolv_conf);
  std::string line;
  while (std::getline(lines, line)) {
    const auto words = util::split_words(line);
    if (words.empty() || words[0] != "search") {
      continue;
    }
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string want = ns.empty() ? std::string(".svc.") : ns + ".svc.";
      const auto at = words[i].find(want);
      if ((ns.empty() ? at != std::string::npos : at == 0) && at + want.size() < words[i].size()) {
        return words[i].substr(at + want.size());
      }
    }
  }
  return std::nullopt;
}

}  // namespace

PodIdentity resolve_identity(const Config& config, const PodFacts& facts) {
  PodIdentity id;
  std::vector<std::string> problems;
  // What LWS, JobSet or Kubeflow Trainer told this pod (throws 64 on a value that is there but
  // wrong). An explicit setting still comes first, but must agree: a RAYLAUNCH_NODES of 4 in an
  // LWS group of 3 would have the head wait out the join timeout for a pod that never comes.
  const std::optional<WorkloadIdentity> workload = workload_identity(facts.env, facts.hostname);
  const bool nodes_given = config.source_of(&Config::nodes) != "default";
  id.nodes = config.nodes;
  id.nodes_source = config.source_of(&Config::nodes);
  if (workload) {
    id.workload = workload->kind;
    id.workload_detail = workload->detail;
    if (workload->nodes) {
      if (nodes_given && config.nodes != *workload->nodes) {
        problems.push_back(config.source_of(&Config::nodes) + ": " + std::to_string(config.nodes) +
                           " contradicts " + workload->nodes_source + "=" + std::to_string(*workload->nodes) +
                           " (" + to_string(workload->kind) + "'s own count: unset " +
                           config.source_of(&Config::nodes) + " or make them equal)");
      }
      id.nodes = *workload->nodes;
      id.nodes_source = workload->nodes_source;
    }
    if (config.ordinal && *config.ordinal != workload->ordinal) {
      problems.push_back(config.source_of(&Config::ordinal) + ": " + std::to_string(*config.ordinal) +
                         " contradicts " + workload->ordinal_source + ", which makes this pod ordinal " +
                         std::to_string(workload->ordinal) + " (unset " + config.source_of(&Config::ordinal) + ")");
    }
    if (workload->ordinal >= id.nodes) {
      problems.push_back(workload->ordinal_source + ": ordinal " + std::to_string(workload->ordinal) +
                         " is not below nodes=" + std::to_string(id.nodes) + " (" + id.nodes_source +
                         "; set RAYLAUNCH_NODES to the pods of the " + to_string(workload->kind) + ")");
    }
    id.workload_pods = workload->pod_names(id.nodes);
  }
  id.ray_port = config.ray_port;
  id.head_port = config.head_port.value_or(config.ray_port);
  id.hostname = facts.hostname;
  id.base_name = base_name(facts.hostname);

  // Ordinal: explicit setting, then the Indexed Job's index, then the StatefulSet name suffix.
  if (config.ordinal) {
    id.ordinal = *config.ordinal;
    id.ordinal_source = config.source_of(&Config::ordinal);
    if (!nodes_given && id.ordinal >= id.nodes && !(workload && workload->ordinal != id.ordinal)) {
      // A given node count was checked with the settings; this one is the default or the workload's.
      problems.push_back(id.ordinal_source + ": ordinal " + std::to_string(id.ordinal) + " is not below nodes=" +
                         std::to_string(id.nodes) + " (expected 0.." + std::to_string(id.nodes - 1) +
                         "; set RAYLAUNCH_NODES to the replica count)");
    }
  } else if (workload) {
    id.ordinal = workload->ordinal;
    id.ordinal_source = workload->ordinal_source;
  } else if (auto jci = facts.env.find("JOB_COMPLETION_INDEX"); jci != facts.env.end() && !jci->second.empty()) {
    const auto n = util::parse_int(jci->second, 0, id.nodes - 1);
    if (n) {
      id.ordinal = static_cast<int>(*n);
      id.ordinal_source = "JOB_COMPLETION_INDEX";
    } else {
      problems.push_back(bad_setting("JOB_COMPLETION_INDEX", jci->second,
                                     n.error() + ", below nodes=" + std::to_string(id.nodes)));
    }
  } else if (auto suffix = ordinal_suffix(facts.hostname)) {
    id.ordinal = *suffix;
    id.ordinal_source = "hostname " + facts.hostname;
    if (*suffix >= id.nodes) {
      problems.push_back("hostname " + facts.hostname + ": ordinal " + std::to_string(*suffix) +
                         " is not below nodes=" + std::to_string(id.nodes) +
                         " (set RAYLAUNCH_NODES to the replica count)");
    }
  } else if (id.nodes == 1) {
    id.ordinal = 0;
    id.ordinal_source = k_single_node_ordinal;
  } else {
    problems.push_back("ordinal: hostname \"" + util::printable(facts.hostname) +
                       "\" has no -N suffix and neither RAYLAUNCH_ORDINAL nor JOB_COMPLETION_INDEX is set "
                       "(expected a StatefulSet/Indexed Job pod name like training-3, without leading zeros, "
                       "or --ordinal N)");
  }
  id.role = id.ordinal == 0 ? Role::head : Role::worker;

  const auto fqdn = own_fqdn_labels(facts.etc_hosts, facts.hostname);
  id.namespace_name = config.namespace_name.value_or("");
  if (config.service) {
    id.service = *config.service;
    id.service_source = config.source_of(&Config::service);
  } else if (fqdn) {
    id.service = (*fqdn)[0];
    id.service_source = "/etc/hosts";
  }
  if (config.cluster_domain) {
    id.cluster_domain = *config.cluster_domain;
    id.cluster_domain_source = config.source_of(&Config::cluster_domain);
  } else if (fqdn) {
    id.cluster_domain = join_from(*fqdn, 3);
    id.cluster_domain_source = "/etc/hosts";
  } else if (auto d = domain_from_resolv_conf(facts.resolv_conf, id.namespace_name)) {
    id.cluster_domain = *d;
    id.cluster_domain_source = "/etc/resolv.conf";
  } else {
    id.cluster_domain = "cluster.local";
    id.cluster_domain_source = "default";
  }

  // The kubelet's FQDN line is the truth about this pod's DNS name: a setting that contradicts it
  // would derive a head name that never resolves, and the pods would wait out the join timeout
  // (30 min in the manifests) blaming each other. Only matters when the head's name is derived.
  const bool workload_head = workload && !workload->head_host.empty();
  if (fqdn && !config.head_host && !workload_head && !(id.nodes == 1 && id.role == Role::head)) {
    const std::string own = facts.hostname + "." + join_from(*fqdn, 0);
    const auto contradicts = [&](const std::string& source, const std::string& given, const std::string& actual,
                                 const char* what) {
      if (given != actual) {
        problems.push_back(source + ": \"" + util::printable(given) + "\" contradicts this pod's own " +
                           "name in /etc/hosts, " + util::printable(own) + " (expected " + util::printable(actual) +
                           ", the " + what + "; the head's derived name would not resolve: fix or unset it)");
      }
    };
    if (config.service) {
      contradicts(config.source_of(&Config::service), *config.service, (*fqdn)[0], "pods' headless Service");
    }
    if (config.namespace_name) {
      contradicts(config.source_of(&Config::namespace_name), *config.namespace_name, (*fqdn)[1], "pod's namespace");
    }
    if (config.cluster_domain) {
      contradicts(config.source_of(&Config::cluster_domain), *config.cluster_domain, join_from(*fqdn, 3),
                  "cluster's DNS domain");
    }
  }

  // Head host: an override; for a one-node job, this pod; else the head pod's stable DNS name
  // under the headless Service (publishNotReadyAddresses makes it resolvable before Ready).
  if (config.head_host) {
    id.head_host = *config.head_host;
    id.head_host_source = config.source_of(&Config::head_host);
  } else if (id.nodes == 1 && id.role == Role::head) {
    id.head_host = platform::k_loopback;
    id.head_host_source = "single-node job: this pod";
  } else if (workload_head) {
    id.head_host = workload->head_host;
    id.head_host_source = workload->head_host_source;
  } else {
    if (id.namespace_name.empty()) {
      problems.push_back(
          "namespace: not set, and the head's DNS name needs it (set POD_NAMESPACE from the Downward API: "
          "valueFrom.fieldRef.fieldPath: metadata.namespace, or pass --namespace or --head-address)");
    }
    if (id.service.empty()) {
      problems.push_back("service: not set and not found in /etc/hosts (set RAYLAUNCH_SERVICE to the headless "
                         "Service name, or give the pod a subdomain, or pass --head-address)");
    }
    const bool ordinal_reported = id.ordinal_source.empty();  // no ordinal at all: said above
    if (!workload && !ordinal_suffix(facts.hostname) && !ordinal_reported) {
      problems.push_back("hostname \"" + util::printable(facts.hostname) +
                         "\" has no -N suffix, so the head's name cannot be derived (pass --head-address)");
    }
    // The head pod's name: the workload's (JobSet: <jobset>-head-0-0), else this pod's base, -0.
    const std::string head_pod = workload ? workload->head_pod : id.base_name + "-0";
    id.head_host = head_pod + "." + id.service + "." + id.namespace_name + ".svc." + id.cluster_domain;
    id.head_host_source = workload ? std::string("derived from ") + to_string(workload->kind) + " pod " + head_pod
                                   : std::string("derived");
  }
  if (!problems.empty()) {
    throw Fatal(exit_code::usage, problems);
  }
  return id;
}

}  // namespace launcher
