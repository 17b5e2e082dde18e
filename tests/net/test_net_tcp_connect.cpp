// tcp_connect and StagedCheck against a listener whose accept queue is full, so a connect hangs
// (the kernel drops the SYN): a stop request ends the wait, on its own and inside a staged attempt.
#include <catch2/catch.hpp>
#include <chrono>

#include "full_listener.hpp"
#include "net/staged_check.hpp"
#include "net/tcp_connect.hpp"

using namespace launcher;
using namespace std::chrono_literals;

using test_support::FullListener;

TEST_CASE("a stop request ends a TCP connect that hangs", "[net]") {
  FullListener full;
  std::stop_source stop;
  stop.request_stop();
  const auto r = net::tcp_connect("127.0.0.1", full.port, 60'000ms, stop.get_token());
  REQUIRE_FALSE(r);
  CHECK(r.error() == "stopped (127.0.0.1:" + std::to_string(full.port) + ")");
}

TEST_CASE("a stop request reaches a staged attempt's first stage", "[net]") {
  FullListener full;
  net::StagedCheck hanging({"127.0.0.1", full.port}, "probe",
                           [](const net::HostPort&, const std::string&, std::chrono::milliseconds, std::stop_token) {
                             return net::ProtocolAnswer{net::ProtocolAnswer::Kind::ready, "reached"};
                           });
  std::stop_source stop;
  stop.request_stop();
  const util::Attempt a = hanging.attempt(60'000ms, stop.get_token());
  CHECK(a.kind == util::Attempt::Kind::failed);
  CHECK(a.line == "DNS stage failing: 127.0.0.1: stopped");  // even an IP literal goes through c-ares
}
