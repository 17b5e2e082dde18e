#pragma once
// FAKE, for unit tests only: a util::Clock that moves only when the code under test sleeps, or
// when a fake call "takes" time (advance). Every wait loop's tests use it (util, gcs, redis).
#include <chrono>
#include <stop_token>
#include <vector>

#include "util/clock.hpp"

namespace test_support {

class FakeClock final : public launcher::util::Clock {
 public:
  TimePoint now() override { return m_now; }
  bool sleep_for(std::chrono::milliseconds d, std::stop_token stop) override {
    if (stop.stop_requested()) {
      return false;
    }
    m_now += d;
    m_slept.push_back(d);
    return true;
  }
  void advance(std::chrono::milliseconds d) { m_now += d; }
  // Every sleep, in order: what the pacing tests inspect.
  const std::vector<std::chrono::milliseconds>& slept() const { return m_slept; }

 private:
  TimePoint m_now{};
  std::vector<std::chrono::milliseconds> m_slept;
};

}  // namespace test_support
