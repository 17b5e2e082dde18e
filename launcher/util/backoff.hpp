#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>

namespace launcher::util {

// Capped exponential backoff with jitter, for retrying an unreachable GCS: `min` (250 ms)
// doubling to `max` (2 s), each delay scaled by a random factor in [1 - jitter, 1 + jitter]
// so a thousand workers retrying a restarted head do not arrive in lockstep. Never below `min`:
// that floor is what keeps a poll loop at most 1/min RPCs per second.
class Backoff {
 public:
  Backoff(std::chrono::milliseconds min, std::chrono::milliseconds max, double jitter = 0.2,
          std::uint64_t seed = std::random_device{}())
      : m_min(min), m_max(max), m_jitter(jitter), m_next(min), m_rng(seed) {}

  // The delay before the next retry; grows the one after it.
  std::chrono::milliseconds next() {
    const std::chrono::milliseconds base = m_next;
    m_next = std::min(m_max, m_next * 2);
    std::uniform_real_distribution<double> factor(1.0 - m_jitter, 1.0 + m_jitter);
    const auto jittered = std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(base.count()) * factor(m_rng)));
    return std::clamp(jittered, m_min, m_max);
  }

  // After a success: the next failure starts again from `min`.
  void reset() { m_next = m_min; }

 private:
  std::chrono::milliseconds m_min;
  std::chrono::milliseconds m_max;
  double m_jitter;
  std::chrono::milliseconds m_next;
  std::mt19937_64 m_rng;
};

}  // namespace launcher::util
