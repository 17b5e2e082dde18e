#include "gcs/join_barrier.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "gcs/backoff.hpp"
#include "util/parse.hpp"

namespace launcher::gcs {

namespace {

// A poll that costs more than a tenth of the interval slows the loop down: a GCS struggling
// with a large table should not be asked four times a second.
constexpr int k_slow_reply_factor = 10;

std::string seconds(std::chrono::milliseconds d) {
  return fmt::format("{:.1f}s", static_cast<double>(d.count()) / 1000.0);
}

// Tracks what was last logged, so the loop logs at every change and at a human pace otherwise.
class ProgressLog {
 public:
  explicit ProgressLog(std::chrono::milliseconds every) : m_every(every) {}

  bool due(const std::string& line, Clock::TimePoint now) {
    if (line == m_last && m_logged_once && now - m_at < m_every) {
      return false;
    }
    m_last = line;
    m_at = now;
    m_logged_once = true;
    return true;
  }

 private:
  std::chrono::milliseconds m_every;
  std::string m_last;
  Clock::TimePoint m_at{};
  bool m_logged_once = false;
};

std::string final_reason(const NodeSource& source, const JoinOptions& options, const JoinResult& r) {
  const std::string waited = util::format_duration(options.timeout);
  switch (r.outcome) {
    case JoinOutcome::joined:
      return "";
    case JoinOutcome::rejected:
      return source.describe() + " rejected the request: " + r.last_error->describe();
    case JoinOutcome::unreachable:
      return source.describe() + " unreachable at the " + waited + " deadline: " + r.last_error->describe() +
             (r.answered ? " (last answer: " + progress_line(r.last_count, options.nodes) + ")"
                         : " (it never answered)");
    case JoinOutcome::timed_out:
      break;
  }
  return "join timed out after " + waited + ": " + progress_line(r.last_count, options.nodes);
}

}  // namespace

JoinResult wait_for_nodes(NodeSource& source, const JoinOptions& options, Clock& clock) {
  JoinResult result;
  const Clock::TimePoint start = clock.now();
  const Clock::TimePoint deadline = start + options.timeout;
  Backoff backoff(options.min_interval, options.max_backoff);
  ProgressLog progress(options.progress_every);
  ProgressLog trouble(options.progress_every);
  bool last_failed = false;

  spdlog::info("waiting for {} nodes at {} (timeout {})", options.nodes, source.describe(),
               util::format_duration(options.timeout));
  for (Clock::TimePoint now = start; now < deadline; now = clock.now()) {
    const std::chrono::milliseconds rpc_timeout =
        std::clamp(ms_between(now, deadline), std::chrono::milliseconds(1), options.rpc_timeout);
    auto reply = source.poll(rpc_timeout);
    const Clock::TimePoint after = clock.now();
    ++result.polls;
    std::chrono::milliseconds delay{0};

    if (reply) {
      result.answered = true;
      last_failed = false;
      result.last_error.reset();
      backoff.reset();
      result.last_count = count_alive(reply.value(), options.expected_names);
      const std::string line = progress_line(result.last_count, options.nodes);
      if (result.last_count.distinct_alive() >= options.nodes) {
        result.outcome = JoinOutcome::joined;
        result.elapsed = ms_between(start, after);
        // "4/4 nodes alive after 4.1s (16 polls); counted once despite …"
        const auto notes = line.find(';');
        spdlog::info("{} after {} ({} polls){}", line.substr(0, notes), seconds(result.elapsed), result.polls,
                     notes == std::string::npos ? std::string() : line.substr(notes));
        return result;
      }
      if (progress.due(line, after)) {
        spdlog::info("{}", line);
      }
      delay = std::clamp(ms_between(now, after) * k_slow_reply_factor, options.min_interval, options.max_backoff);
    } else {
      last_failed = true;
      result.last_error = reply.error();
      if (reply.error().unauthenticated()) {
        result.outcome = JoinOutcome::rejected;
        break;
      }
      // A transport failure may have left the channel in gRPC's own backoff, or bound to an
      // address the name no longer has (a restarted head pod): start afresh next time.
      if (reply.error().grpc_code != 0) {
        source.reset();
      }
      const std::string line = source.describe() + " not answering: " + reply.error().describe();
      if (trouble.due(line, after)) {
        spdlog::warn("{} (retrying for {} more)", line, seconds(ms_between(after, deadline)));
      }
      delay = backoff.next();
    }
    // No extra poll squeezed in just before the deadline: that would break the pacing.
    const std::chrono::milliseconds left = ms_between(clock.now(), deadline);
    if (left <= delay) {
      clock.sleep_for(left);
      break;
    }
    clock.sleep_for(delay);
  }
  if (result.outcome != JoinOutcome::rejected) {
    result.outcome = last_failed ? JoinOutcome::unreachable : JoinOutcome::timed_out;
  }
  result.elapsed = ms_between(start, clock.now());
  result.reason = final_reason(source, options, result);
  return result;
}

}  // namespace launcher::gcs
