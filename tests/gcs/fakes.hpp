#pragma once
// Test fakes shared by the GCS unit tests (not production code): the shared fake clock
// (tests/support/fake_clock.hpp) and a script of answers whose last entry repeats.
#include <chrono>
#include <deque>
#include <utility>
#include <vector>

#include "fake_clock.hpp"

namespace gcs_test {

using FakeClock = test_support::FakeClock;

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
