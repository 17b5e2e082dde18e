// redis::Connection against a server that never completes the TCP handshake (a listener whose
// accept queue is full: the kernel drops the SYN): a stop request ends the connect at once, as a
// SIGTERM to the Redis preflight must (issue 26 item 13).
#include <catch2/catch.hpp>
#include <chrono>
#include <stop_token>
#include <thread>

#include "full_listener.hpp"
#include "redis/connection.hpp"

using namespace launcher;
using namespace std::chrono_literals;
using test_support::FullListener;

TEST_CASE("a stop request ends a Redis connect that hangs", "[redis]") {
  FullListener full;
  std::stop_source stop;
  stop.request_stop();
  // 3 s: what it would wait, stop or not, if the connect did not listen to the stop token.
  const auto r = redis::Connection::open("127.0.0.1", full.port, 3000ms, 3000ms, stop.get_token());
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == redis::RedisError::Kind::stopped);
}

TEST_CASE("a stop request during a hanging Redis connect ends it", "[redis]") {
  FullListener full;
  std::stop_source stop;
  std::jthread signal([&stop] {
    std::this_thread::sleep_for(200ms);  // a SIGTERM arrives while the connect hangs
    stop.request_stop();
  });
  const auto r = redis::Connection::open("127.0.0.1", full.port, 30'000ms, 30'000ms, stop.get_token());
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == redis::RedisError::Kind::stopped);
}
