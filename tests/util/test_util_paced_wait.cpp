#include <catch2/catch.hpp>
#include <deque>

#include "fake_clock.hpp"
#include "util/paced_wait.hpp"

using namespace launcher::util;
using namespace std::chrono_literals;
using Kind = Attempt::Kind;

namespace {

using test_support::FakeClock;

WaitOptions options(std::chrono::milliseconds timeout) {
  WaitOptions o;
  o.timeout = timeout;
  return o;
}

}  // namespace

TEST_CASE("paced wait: answered-but-waiting polls are paced, failures back off", "[util][wait]") {
  FakeClock clock;
  int n = 0;
  const WaitReport r = paced_wait("x", options(10s), clock, {}, [&](auto, auto) {
    ++n;
    return Attempt{n < 5 ? Kind::failed : Kind::waiting, "line"};
  });
  CHECK(r.end == WaitEnd::not_ready);
  CHECK(r.answered);
  REQUIRE(clock.slept().size() > 6);
  CHECK(clock.slept()[1] > clock.slept()[0]);  // backoff grows while failing
  for (std::size_t i = 5; i + 1 < clock.slept().size(); ++i) {
    CHECK(clock.slept()[i] == 275ms);  // answered: the minimum interval
  }
}

TEST_CASE("paced wait: slow answers stretch the interval", "[util][wait]") {
  FakeClock clock;
  paced_wait("x", options(5s), clock, {}, [&](auto, auto) {
    clock.advance(100ms);
    return Attempt{Kind::waiting, "line"};
  });
  CHECK(clock.slept().front() == 1000ms);
}

TEST_CASE("paced wait: the last failure at the deadline is unreachable, no attempt past it", "[util][wait]") {
  FakeClock clock;
  std::vector<std::chrono::milliseconds> timeouts;
  const WaitReport r = paced_wait("x", options(3s), clock, {}, [&](auto t, auto) {
    timeouts.push_back(t);
    clock.advance(t);  // every attempt times out
    return Attempt{Kind::failed, "DNS stage failing: name not found"};
  });
  CHECK(r.end == WaitEnd::unreachable);
  CHECK(r.last_line == "DNS stage failing: name not found");
  CHECK(timeouts.front() == 3s);
  for (auto t : timeouts) {
    CHECK(t >= 1ms);
  }
  CHECK(r.elapsed == 3s);
}

TEST_CASE("paced wait: done and refused end at once", "[util][wait]") {
  FakeClock clock;
  CHECK(paced_wait("x", options(10s), clock, {}, [](auto, auto) { return Attempt{Kind::done, "ok"}; }).end ==
        WaitEnd::ready);
  const WaitReport r = paced_wait("x", options(10s), clock, {}, [](auto, auto) { return Attempt{Kind::refused, "no"}; });
  CHECK(r.end == WaitEnd::refused);
  CHECK(r.attempts == 1);
}

TEST_CASE("paced wait: a stop ends the sleep and the loop", "[util][wait]") {
  FakeClock clock;
  std::stop_source stop;
  int n = 0;
  const WaitReport r = paced_wait("x", options(60s), clock, stop.get_token(), [&](auto, auto) {
    if (++n == 2) {
      stop.request_stop();
    }
    return Attempt{Kind::failed, "line"};
  });
  CHECK(r.end == WaitEnd::stopped);
  CHECK(n == 2);
}

TEST_CASE("SteadyClock's sleep ends early when stopped", "[util][wait]") {
  SteadyClock clock;
  std::stop_source stop;
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(clock.sleep_for(60s, stop.get_token()));
  t.join();
  CHECK(std::chrono::steady_clock::now() - start < 30s);  // loose: ended by the stop, not the minute
}
