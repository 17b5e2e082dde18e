#include "gcs/readiness_cache.hpp"

#include "util/parse.hpp"

namespace launcher::gcs {

ReadinessCache::ReadinessCache(util::Clock& clock, std::chrono::milliseconds period, std::uint64_t seed)
    : m_clock(clock), m_period(period), m_rng(seed) {}

std::optional<ProbeResult> ReadinessCache::fresh() {
  const auto now = m_clock.now();
  if (!m_answer || now >= m_expires) {
    return std::nullopt;
  }
  ProbeResult r = *m_answer;
  r.line += " (Ray <= 2.35 lists every node: answer from " + util::format_elapsed(util::ms_between(m_at, now)) +
            " ago, asked at most every " + util::format_duration(m_period) + ")";
  return r;
}

void ReadinessCache::store(const ProbeResult& result) {
  if (!result.healthy) {
    m_answer.reset();
    return;
  }
  std::uniform_int_distribution<std::int64_t> jitter(0, m_period.count() / 5);
  m_answer = result;
  m_at = m_clock.now();
  m_expires = m_at + m_period + std::chrono::milliseconds(jitter(m_rng));
}

}  // namespace launcher::gcs
