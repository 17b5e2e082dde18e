#include <catch2/catch.hpp>
#include <set>

#include "fakes.hpp"
#include "gcs/probe.hpp"

using namespace launcher::gcs;
using namespace std::chrono_literals;

TEST_CASE("an unfiltered readiness answer is reused for 30 s plus up to 20 % jitter, never less") {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    gcs_test::FakeClock clock;
    ReadinessCache cache(clock, 30s, seed);
    CHECK_FALSE(cache.fresh().has_value());
    cache.store({true, "training-1 is ALIVE"});
    clock.advance(29'900ms);
    const auto kept = cache.fresh();
    REQUIRE(kept.has_value());
    CHECK(kept->healthy);
    CHECK(kept->line.starts_with("training-1 is ALIVE (Ray <= 2.35 lists every node: answer from 29.9s ago"));
    clock.advance(6'100ms);  // 36 s: past any jitter
    CHECK_FALSE(cache.fresh().has_value());
  }
}

TEST_CASE("pods started together do not all ask again at the same moment") {
  std::set<std::int64_t> expiries;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    gcs_test::FakeClock clock;
    ReadinessCache cache(clock, 30s, seed);
    cache.store({true, "training-1 is ALIVE"});
    clock.advance(30s);
    std::int64_t ms = 30'000;
    while (cache.fresh()) {
      clock.advance(100ms);
      ms += 100;
    }
    expiries.insert(ms);
  }
  CHECK(expiries.size() > 10);
}

TEST_CASE("a not-ready answer is not kept: the pod is about to register") {
  gcs_test::FakeClock clock;
  ReadinessCache cache(clock, 30s, 7);
  cache.store({true, "training-1 is ALIVE"});
  cache.store({false, "training-1 is not registered"});
  CHECK_FALSE(cache.fresh().has_value());
}
