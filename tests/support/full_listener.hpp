#pragma once
// For unit tests only: a loopback listener with a backlog of 0 whose one queued connection is
// taken, so the kernel drops the next SYN and a connect to it hangs until its caller gives up —
// what a firewalled or vanished server looks like to a client (tests/net, tests/redis).
#include <netinet/in.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "net/tcp_connect.hpp"
#include "util/fd.hpp"

namespace test_support {

struct FullListener {
  launcher::util::Fd listener{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  launcher::util::Fd queued;
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
    auto first = launcher::net::tcp_connect("127.0.0.1", port, std::chrono::milliseconds(2000));
    REQUIRE(first);
    queued = std::move(first.value());
  }
};

}  // namespace test_support
