#include <catch2/catch.hpp>

#include "net/dns_name.hpp"
#include "net/host_port.hpp"

using namespace launcher::net;

TEST_CASE("host:port, with IPv6 in brackets and an optional default port", "[net]") {
  CHECK(parse_host_port("training-0.training.ml.svc.cluster.local:6379")->host ==
        "training-0.training.ml.svc.cluster.local");
  CHECK(parse_host_port("10.0.0.1:6379")->port == 6379);
  CHECK(parse_host_port("[::1]:6379")->host == "::1");
  CHECK(parse_host_port("[fd00::1]:6379")->text() == "[fd00::1]:6379");
  CHECK(parse_host_port("head", 6379)->text() == "head:6379");
  CHECK(parse_host_port("[fd00::1]", 6379)->text() == "[fd00::1]:6379");
  CHECK(parse_host_port("head.:7000")->port == 7000);  // a fully qualified name
}

TEST_CASE("host:port refuses what would only fail at the deadline", "[net][bad-input]") {
  for (const char* bad : {"host", ":6379", "host:0", "host:http", "host:65536", "host:", "redis://host:6379",
                          "h ost:6379", "host:6379:6379", "fd00::1:6379", "[fd00::1", "[fd00::1]6379", "[nothost]:1",
                          "ho\nst:1", "-host:1", "", "[]:1"}) {
    INFO(bad);
    CHECK_FALSE(parse_host_port(bad).ok());
  }
  CHECK(parse_host_port("redis://host:6379").error().ends_with(", without a scheme"));
  CHECK(parse_host_port(std::string(254, 'a') + ":1").ok() == false);
}

TEST_CASE("DNS names as Kubernetes issues them", "[net]") {
  CHECK(is_dns_label("training-0"));
  CHECK_FALSE(is_dns_label("Training-0"));
  CHECK_FALSE(is_dns_label("-x"));
  CHECK_FALSE(is_dns_label("x-"));
  CHECK_FALSE(is_dns_label(std::string(64, 'a')));
  CHECK(is_dns_label(std::string(63, 'a')));
  CHECK(is_dns_subdomain("cluster.local"));
  CHECK_FALSE(is_dns_subdomain("cluster..local"));
  CHECK_FALSE(is_dns_subdomain(".local"));
  CHECK(is_host_name("GCS-Head.Example.com"));
}
