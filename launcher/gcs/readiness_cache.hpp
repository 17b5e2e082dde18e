#pragma once
#include <chrono>
#include <optional>
#include <random>

#include "gcs/probe.hpp"
#include "util/clock.hpp"

namespace launcher::gcs {

// A worker's readiness answer, reused where asking costs the GCS its whole node table (Ray <= 2.35
// filters nothing: ~457 bytes per node per reply, ~1.9 MB at 4,096 nodes). The resident endpoint
// asks again at most every `period`, stretched by up to 20 % at random so that thousands of pods
// started together do not ask in step. Only answers the GCS gave are kept; a failed call is not.
// A "not ready" answer is not kept at all (the endpoint's own 1 s cache still bounds the asking):
// a pod that has just started is about to register, and keeping its "not registered" for 30 s
// left it NotReady that long after its head counted it (tests/cluster scenario 7).
class ReadinessCache {
 public:
  static constexpr std::chrono::milliseconds k_period{30'000};

  ReadinessCache(util::Clock& clock, std::chrono::milliseconds period = k_period,
                 std::uint64_t seed = std::random_device{}());

  // The kept answer while it is fresh, its line ending in "(Ray <= 2.35: answer from 12s ago)".
  std::optional<ProbeResult> fresh();
  void store(const ProbeResult& result);
  void clear() { m_answer.reset(); }

 private:
  util::Clock& m_clock;
  std::chrono::milliseconds m_period;
  std::mt19937_64 m_rng;
  std::optional<ProbeResult> m_answer;
  util::Clock::TimePoint m_at{};
  util::Clock::TimePoint m_expires{};
};

}  // namespace launcher::gcs
