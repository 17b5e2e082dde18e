#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>

namespace launcher::util {

// Time for the wait loops, behind a seam so unit tests run them on a fake clock. A sleep ends
// early when `stop` is requested (SIGTERM, a dead Ray child): no wait outlives its reason.
class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint now() = 0;
  // Sleeps `d`, or less when `stop` is requested; returns false when it was stopped.
  virtual bool sleep_for(std::chrono::milliseconds d, std::stop_token stop) = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() override { return std::chrono::steady_clock::now(); }
  bool sleep_for(std::chrono::milliseconds d, std::stop_token stop) override {
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, stop, d, [] { return false; });
    return !stop.stop_requested();
  }

 private:
  std::mutex m_mutex;
  std::condition_variable_any m_wake;
};

// Whole milliseconds between two time points (never negative).
inline std::chrono::milliseconds ms_between(Clock::TimePoint from, Clock::TimePoint to) {
  const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(to - from);
  return d.count() < 0 ? std::chrono::milliseconds(0) : d;
}

}  // namespace launcher::util
