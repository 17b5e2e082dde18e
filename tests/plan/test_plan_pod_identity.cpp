#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "plan/pod_identity.hpp"

using namespace launcher;
using fixtures::config;
using fixtures::fatal_lines;

namespace {

const char* const k_hosts =
    "127.0.0.1\tlocalhost\n"
    "10.0.1.17\ttraining-3.training-svc.ml.svc.corp.example\ttraining-3\n";

PodFacts facts(const std::string& hostname, EnvMap env = {}, std::string hosts = "", std::string resolv = "") {
  PodFacts f;
  f.hostname = hostname;
  f.hostname_source = "HOSTNAME";
  f.env = std::move(env);
  f.etc_hosts = std::move(hosts);
  f.resolv_conf = std::move(resolv);
  return f;
}

}  // namespace

TEST_CASE("a StatefulSet pod's ordinal and head come from its name and /etc/hosts", "[identity]") {
  const PodIdentity id = resolve_identity(config({{"nodes", "4"}, {"namespace", "ml"}}), facts("training-3", {}, k_hosts));
  CHECK(id.role == Role::worker);
  CHECK(id.ordinal == 3);
  CHECK(id.ordinal_source == "hostname training-3");
  CHECK(id.service == "training-svc");
  CHECK(id.service_source == "/etc/hosts");
  CHECK(id.cluster_domain == "corp.example");
  CHECK(id.head_address() == "training-0.training-svc.ml.svc.corp.example:6379");
  CHECK(id.expected_node_names() == std::vector<std::string>{"training-0", "training-1", "training-2", "training-3"});
}

TEST_CASE("ordinal 0 is the head", "[identity]") {
  const PodIdentity id =
      resolve_identity(config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "svc"}}), facts("my-job-0"));
  CHECK(id.role == Role::head);
  CHECK(id.base_name == "my-job");
  CHECK(id.head_address() == "my-job-0.svc.ml.svc.cluster.local:6379");
  CHECK(id.cluster_domain_source == "default");
}

TEST_CASE("JOB_COMPLETION_INDEX beats the hostname, an explicit ordinal beats both", "[identity]") {
  const Config c = config({{"nodes", "4"}, {"namespace", "ml"}, {"service", "svc"}});
  CHECK(resolve_identity(c, facts("job-2", {{"JOB_COMPLETION_INDEX", "2"}})).ordinal_source == "JOB_COMPLETION_INDEX");
  const Config explicit_ordinal = config({{"nodes", "4"}, {"namespace", "ml"}, {"service", "svc"}, {"ordinal", "1"}});
  const PodIdentity id = resolve_identity(explicit_ordinal, facts("job-2", {{"JOB_COMPLETION_INDEX", "2"}}));
  CHECK(id.ordinal == 1);
  CHECK(id.ordinal_source == "--ordinal");
}

TEST_CASE("the cluster domain falls back to resolv.conf's search line", "[identity]") {
  const PodIdentity id =
      resolve_identity(config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "svc"}}),
                       facts("t-1", {}, "", "search ml.svc.k8s.internal svc.k8s.internal k8s.internal\n"));
  CHECK(id.cluster_domain == "k8s.internal");
  CHECK(id.cluster_domain_source == "/etc/resolv.conf");
}

TEST_CASE("a head address override replaces the derived name", "[identity]") {
  const PodIdentity id = resolve_identity(config({{"nodes", "2"}, {"head_address", "10.0.0.5"}, {"ray_port", "7000"}}),
                                          facts("anything-1"));
  CHECK(id.head_address() == "10.0.0.5:7000");
  CHECK(id.head_host_source == "--head-address");
}

TEST_CASE("a single-node job needs no namespace or Service", "[identity]") {
  const PodIdentity id = resolve_identity(config({}), facts("laptop"));
  CHECK(id.role == Role::head);
  CHECK(id.ordinal_source == "single node (nodes=1)");
  CHECK(id.head_address() == "127.0.0.1:6379");
}

TEST_CASE("a hostname without an ordinal and no other source is refused", "[identity][bad-input]") {
  int code = 0;
  const auto lines =
      fatal_lines([] { resolve_identity(config({{"nodes", "3"}, {"namespace", "ml"}, {"service", "s"}}), facts("laptop")); },
                  &code);
  CHECK(code == 64);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] ==
        "ordinal: hostname \"laptop\" has no -N suffix and neither RAYLAUNCH_ORDINAL nor JOB_COMPLETION_INDEX is set "
        "(expected a StatefulSet/Indexed Job pod name like training-3, without leading zeros, or --ordinal N)");
}

TEST_CASE("a missing namespace is refused when the head's name must be derived", "[identity][bad-input]") {
  const auto lines = fatal_lines([] { resolve_identity(config({{"nodes", "2"}, {"service", "svc"}}), facts("t-1")); });
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].starts_with("namespace: not set, and the head's DNS name needs it (set POD_NAMESPACE"));
}

TEST_CASE("a hostname ordinal beyond the node count is refused", "[identity][bad-input]") {
  const auto lines =
      fatal_lines([] { resolve_identity(config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "s"}}), facts("t-5")); });
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "hostname t-5: ordinal 5 is not below nodes=2 (set RAYLAUNCH_NODES to the replica count)");
}

TEST_CASE("a bad JOB_COMPLETION_INDEX is refused", "[identity][bad-input]") {
  const auto lines = fatal_lines([] {
    resolve_identity(config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "s"}}),
                     facts("job-1", {{"JOB_COMPLETION_INDEX", "7"}}));
  });
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "JOB_COMPLETION_INDEX: \"7\" is not valid (expected a whole number from 0 to 1, below nodes=2)");
}

TEST_CASE("a worker whose ordinal is explicit still needs a -N hostname to derive the head", "[identity][bad-input]") {
  const auto lines = fatal_lines([] {
    resolve_identity(config({{"nodes", "2"}, {"ordinal", "1"}, {"namespace", "ml"}, {"service", "s"}}), facts("laptop"));
  });
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "hostname \"laptop\" has no -N suffix, so the head's name cannot be derived (pass --head-address)");
}

TEST_CASE("a single-node job is its own head even when DNS facts are known", "[identity]") {
  const PodIdentity id = resolve_identity(config({{"namespace", "ml"}, {"service", "svc"}}), facts("solo"));
  CHECK(id.head_address() == "127.0.0.1:6379");
  CHECK(id.expected_node_names() == std::vector<std::string>{"solo"});
}

TEST_CASE("a head address may carry its port, and RAYLAUNCH_HEAD_ADDRESS reads back what raylaunch exports",
          "[identity]") {
  const PodIdentity id =
      resolve_identity(config({{"nodes", "2"}, {"head_address", "training-0.t.ml.svc.cluster.local:7000"}}),
                       facts("training-1"));
  CHECK(id.head_address() == "training-0.t.ml.svc.cluster.local:7000");
  // A nested raylaunch (a probe, `status` in the pod) inherits the exported value: it must parse.
  const PodIdentity nested = resolve_identity(config({}, {{"RAYLAUNCH_HEAD_ADDRESS", id.head_address()},
                                                          {"RAYLAUNCH_NODES", "2"}}),
                                              facts("training-1"));
  CHECK(nested.head_address() == id.head_address());
  const PodIdentity v6 = resolve_identity(config({{"nodes", "2"}, {"head_address", "[fd00::5]"}}), facts("t-1"));
  CHECK(v6.head_address() == "[fd00::5]:6379");
}

TEST_CASE("an ordinal suffix with a leading zero is not one Kubernetes writes", "[identity][bad-input]") {
  // training-00 must not become the head while the derived head name points at training-0.
  const auto lines = fatal_lines(
      [] { resolve_identity(config({{"nodes", "2"}, {"namespace", "ml"}, {"service", "s"}}), facts("training-00")); });
  REQUIRE_FALSE(lines.empty());
  CHECK_THAT(lines[0], Catch::Contains("has no -N suffix"));
  CHECK_THAT(lines[0], Catch::Contains("without leading zeros"));
}

TEST_CASE("a setting that contradicts the pod's own FQDN is refused at start, not waited out", "[identity][bad-input]") {
  // k_hosts: training-3.training-svc.ml.svc.corp.example
  int code = 0;
  const auto lines = fatal_lines(
      [] {
        resolve_identity(config({{"nodes", "4"}, {"namespace", "ml"}, {"cluster_domain", "cluster.local"}}),
                         facts("training-3", {}, k_hosts));
      },
      &code);
  CHECK(code == 64);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "--cluster-domain: \"cluster.local\" contradicts this pod's own name in /etc/hosts, "
                    "training-3.training-svc.ml.svc.corp.example (expected corp.example, the cluster's DNS domain; the "
                    "head's derived name would not resolve: fix or unset it)");
  CHECK(fatal_lines([] {
          resolve_identity(config({{"nodes", "4"}, {"namespace", "ml"}, {"service", "other"}}),
                           facts("training-3", {}, k_hosts));
        }).front().starts_with("--service: \"other\" contradicts this pod's own name"));
  // Agreeing settings, and an explicit head address, are fine.
  CHECK(resolve_identity(config({{"nodes", "4"}, {"namespace", "ml"}, {"service", "training-svc"},
                                 {"cluster_domain", "corp.example"}}),
                         facts("training-3", {}, k_hosts))
            .head_host == "training-0.training-svc.ml.svc.corp.example");
  CHECK_NOTHROW(resolve_identity(config({{"nodes", "4"}, {"cluster_domain", "x.y"}, {"head_address", "10.0.0.5"}}),
                                 facts("training-3", {}, k_hosts)));
}
