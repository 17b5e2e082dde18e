#include <catch2/catch.hpp>
#include <deque>

#include "fake_clock.hpp"
#include "redis/redis_wait.hpp"

using namespace launcher;
using namespace std::chrono_literals;
using Kind = util::Attempt::Kind;

namespace {

using test_support::FakeClock;

// Plays `attempts` in order, the last repeating; each takes `cost` on the fake clock.
struct Script {
  FakeClock& clock;
  std::deque<util::Attempt> attempts;
  std::chrono::milliseconds cost{5};
  int calls = 0;
  util::Attempt operator()(std::chrono::milliseconds, std::stop_token) {
    ++calls;
    clock.advance(cost);
    util::Attempt a = attempts.front();
    if (attempts.size() > 1) {
      attempts.pop_front();
    }
    return a;
  }
};

}  // namespace

TEST_CASE("a Redis that comes up late is waited for", "[redis-wait]") {
  FakeClock clock;
  Script script{clock, {{Kind::failed, "DNS stage failing: name not found"},
                        {Kind::failed, "TCP connect stage failing: Connection refused (10.0.0.5:6379)"},
                        {Kind::done, "PONG after AUTH"}}};
  const auto r = redis::wait_for_redis("Redis at r:6379", std::ref(script), net::staged_wait_options(60s), clock, {});
  CHECK(r.end == util::WaitEnd::ready);
  CHECK(r.answer == "PONG after AUTH");
  CHECK(r.attempts == 3);
  CHECK(r.reason.empty());
}

TEST_CASE("rejected credentials end the wait at once", "[redis-wait]") {
  FakeClock clock;
  Script script{clock, {{Kind::refused, "Redis rejected the credentials: WRONGPASS … (check REDIS_PASSWORD)"}}};
  const auto r = redis::wait_for_redis("Redis at r:6379", std::ref(script), net::staged_wait_options(300s), clock, {});
  CHECK(r.end == util::WaitEnd::refused);
  CHECK(script.calls == 1);
  CHECK(r.elapsed < 1s);
  CHECK(r.reason == "Redis at r:6379: Redis rejected the credentials: WRONGPASS … (check REDIS_PASSWORD)");
  CHECK(util::exit_code_of(r.end, 0) == 69);
}

TEST_CASE("a Redis that never answers is unreachable at the deadline, not later", "[redis-wait]") {
  FakeClock clock;
  const auto start = clock.now();
  Script script{clock, {{Kind::failed, "Redis stage failing: no reply from 10.0.0.5:6379 within 2000 ms"}}, 2000ms};
  const auto r = redis::wait_for_redis("Redis at r:6379", std::ref(script), net::staged_wait_options(30s), clock, {});
  CHECK(r.end == util::WaitEnd::unreachable);
  CHECK(clock.now() - start <= 30s + 2000ms);  // the last attempt may run to its own timeout
  CHECK(r.attempts >= 8);
  CHECK(r.reason ==
        "Redis at r:6379 not ready at the 30s deadline: Redis stage failing: no reply from 10.0.0.5:6379 within 2000 ms");
  CHECK(util::exit_code_of(r.end, 0) == 69);
}

TEST_CASE("a stop request ends the wait with the signal's code", "[redis-wait]") {
  FakeClock clock;
  std::stop_source source;
  int calls = 0;
  const auto attempt = [&](std::chrono::milliseconds, std::stop_token) {
    if (++calls == 3) {
      source.request_stop();
    }
    return util::Attempt{Kind::failed, "TCP connect stage failing: Connection refused"};
  };
  const auto r = redis::wait_for_redis("Redis at r:6379", attempt, net::staged_wait_options(300s), clock,
                                       source.get_token());
  CHECK(r.end == util::WaitEnd::stopped);
  CHECK(calls == 3);
  CHECK(util::exit_code_of(r.end, 15) == 143);
}

TEST_CASE("the Redis wait is paced like the head's wait", "[redis-wait]") {
  const util::WaitOptions o = net::staged_wait_options(90s);
  CHECK(o.timeout == 90s);
  CHECK(o.attempt_timeout == 2s);
  CHECK(o.min_interval == 250ms);
  CHECK(o.max_backoff == 2s);
}
