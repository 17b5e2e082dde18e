#include <catch2/catch.hpp>

#include "net/dns_lookup.hpp"

using namespace launcher::net;
using namespace std::chrono_literals;

TEST_CASE("resolve_host: IP literals and /etc/hosts through c-ares, no NSS") {
  const auto ip = resolve_host("127.0.0.1", 1000ms);
  REQUIRE(ip.ok());
  CHECK(ip.value() == std::vector<std::string>{"127.0.0.1"});
  const auto bad = resolve_host("no-such-host.invalid", 2000ms);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().rfind("no-such-host.invalid: ", 0) == 0);
}

