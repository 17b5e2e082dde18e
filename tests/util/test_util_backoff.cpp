#include <catch2/catch.hpp>

#include "util/paced_wait.hpp"

using namespace launcher::util;
using namespace std::chrono_literals;

TEST_CASE("Backoff doubles from min to max, with jitter, and resets") {
  Backoff b(250ms, 2000ms, 0.2, 42);
  const auto first = b.next();
  CHECK(first >= 250ms);
  CHECK(first <= 300ms);
  const auto second = b.next();
  CHECK(second >= 400ms);
  CHECK(second <= 600ms);
  for (int i = 0; i < 10; ++i) {
    const auto d = b.next();
    CHECK(d >= 250ms);
    CHECK(d <= 2000ms);
  }
  CHECK(b.next() >= 1600ms);
  b.reset();
  CHECK(b.next() <= 300ms);
}

