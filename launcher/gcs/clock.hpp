#pragma once
#include <chrono>
#include <thread>

namespace launcher::gcs {

// Time for the wait loops, behind a seam so unit tests run them on a fake clock.
class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint now() = 0;
  virtual void sleep_for(std::chrono::milliseconds d) = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() override { return std::chrono::steady_clock::now(); }
  void sleep_for(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }
};

// Whole milliseconds between two time points (never negative).
inline std::chrono::milliseconds ms_between(Clock::TimePoint from, Clock::TimePoint to) {
  const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(to - from);
  return d.count() < 0 ? std::chrono::milliseconds(0) : d;
}

}  // namespace launcher::gcs
