#pragma once
// Test fakes shared by the GCS unit tests (not production code): a clock that only moves when
// told to, and a script of answers whose last entry repeats.
#include <chrono>
#include <deque>
#include <utility>
#include <vector>

#include "util/clock.hpp"

namespace gcs_test {

// Moves only when the code under test sleeps, or when a fake call "takes" time (`advance`).
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
  const std::vector<std::chrono::milliseconds>& slept() const { return m_slept; }

 private:
  TimePoint m_now{};
  std::vector<std::chrono::milliseconds> m_slept;
};

// Plays `answers` in order; the last one repeats forever.
template <typename T>
class Script {
 public:
  explicit Script(std::deque<T> answers) : m_answers(std::move(answers)) {}
  T next() {
    T a = m_answers.front();
    if (m_answers.size() > 1) {
      m_answers.pop_front();
    }
    return a;
  }

 private:
  std::deque<T> m_answers;
};

}  // namespace gcs_test
