// tcp_connect and StagedCheck against a listener whose accept queue is full, so a connect hangs
// (the kernel drops the SYN): a stop request ends the wait, on its own and inside a staged attempt.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "net/staged_check.hpp"
#include "net/tcp_connect.hpp"
#include "util/fd.hpp"

using namespace launcher;
using namespace std::chrono_literals;

namespace {

// A loopback listener with a backlog of 0, its one queued connection taken: the next connect
// hangs until its caller gives up.
struct FullListener {
  util::Fd listener{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  util::Fd queued;
  int port = 0;
  FullListener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), len) == 0);
    REQUIRE(::listen(listener.get(), 0) == 0);
    REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port = ntohs(addr.sin_port);
    auto first = net::tcp_connect("127.0.0.1", port, 2000ms);
    REQUIRE(first);
    queued = std::move(first.value());
  }
};

}  // namespace

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
