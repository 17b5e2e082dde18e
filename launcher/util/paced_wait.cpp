#include "util/paced_wait.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>

#include "util/exit_codes.hpp"
#include "util/parse.hpp"

namespace launcher::util {

namespace {

constexpr int k_slow_reply_factor = 10;

std::string seconds(std::chrono::milliseconds d) {
  return fmt::format("{:.1f}s", static_cast<double>(d.count()) / 1000.0);
}

// Logs a line when it differs from the last one, or when the last was `every` ago.
class ThrottledLog {
 public:
  explicit ThrottledLog(std::chrono::milliseconds every) : m_every(every) {}

  bool due(const std::string& line, Clock::TimePoint now) {
    if (m_logged && line == m_last && now - m_at < m_every) {
      return false;
    }
    m_last = line;
    m_at = now;
    m_logged = true;
    return true;
  }

  // The next line is due whatever it says: the other kind of line came in between (an outage
  // began or ended), and the log must show the change.
  void reset() { m_logged = false; }

 private:
  std::chrono::milliseconds m_every;
  std::string m_last;
  Clock::TimePoint m_at{};
  bool m_logged = false;
};

}  // namespace

std::chrono::milliseconds pause_after_answer(const WaitOptions& options, std::chrono::milliseconds attempt_time) {
  return std::clamp(attempt_time * k_slow_reply_factor, options.min_interval, options.max_backoff);
}

int exit_code_of(WaitEnd end, int stop_signal) {
  switch (end) {
    case WaitEnd::ready:
      return exit_code::ok;
    case WaitEnd::not_ready:
      return exit_code::temp_fail;
    case WaitEnd::unreachable:
    case WaitEnd::refused:
      return exit_code::unavailable;
    case WaitEnd::stopped:
      return exit_code::killed_by(stop_signal > 0 ? stop_signal : SIGTERM);
  }
  return exit_code::software;
}

std::string describe_end(const std::string& what, const WaitReport& report, const WaitOptions& options) {
  switch (report.end) {
    case WaitEnd::ready:
      return "";
    case WaitEnd::refused:
      return what + ": " + report.last_line;
    case WaitEnd::stopped:
      return "wait for " + what + " stopped after " + format_elapsed(report.elapsed);
    case WaitEnd::not_ready:
    case WaitEnd::unreachable:
      break;
  }
  return what + " not ready at the " + format_duration(options.timeout) +
         " deadline: " + (report.last_line.empty() ? std::string("no attempt finished") : report.last_line);
}

WaitReport paced_wait(const std::string& what, const WaitOptions& options, Clock& clock, std::stop_token stop,
                      const std::function<Attempt(std::chrono::milliseconds, std::stop_token)>& attempt) {
  WaitReport report;
  const Clock::TimePoint start = clock.now();
  const Clock::TimePoint deadline = start + options.timeout;
  Backoff backoff(options.min_interval, options.max_backoff);
  ThrottledLog progress(options.progress_every);
  ThrottledLog trouble(options.progress_every);
  Attempt::Kind last = Attempt::Kind::failed;
  bool last_cut_short = false;  // the deadline itself ended the last attempt, which then failed

  for (Clock::TimePoint now = start; now < deadline; now = clock.now()) {
    if (stop.stop_requested()) {
      report.end = WaitEnd::stopped;
      break;
    }
    const auto timeout = std::clamp(ms_between(now, deadline), std::chrono::milliseconds(1), options.attempt_timeout);
    const Attempt a = attempt(timeout, stop);
    const Clock::TimePoint after = clock.now();
    ++report.attempts;
    report.last_line = a.line;
    last = a.kind;
    last_cut_short = timeout < options.attempt_timeout && after >= deadline;
    std::chrono::milliseconds delay{0};
    switch (a.kind) {
      case Attempt::Kind::done:
        report.end = WaitEnd::ready;
        report.answered = true;
        report.last_answer_line = a.line;
        report.elapsed = ms_between(start, after);
        return report;
      case Attempt::Kind::refused:
        report.end = WaitEnd::refused;
        report.elapsed = ms_between(start, after);
        return report;
      case Attempt::Kind::waiting:
        report.answered = true;
        report.last_answer_line = a.line;
        backoff.reset();
        trouble.reset();
        if (progress.due(a.line, after)) {
          spdlog::info("{}", a.line);
        }
        delay = pause_after_answer(options, ms_between(now, after));
        break;
      case Attempt::Kind::failed:
        if (stop.stop_requested()) {
          break;  // the attempt was cancelled, not refused: say nothing
        }
        progress.reset();
        if (trouble.due(a.line, after)) {
          spdlog::warn("{}: {} (retrying for {} more)", what, a.line, seconds(ms_between(after, deadline)));
        }
        delay = backoff.next();
        break;
    }
    const auto left = ms_between(clock.now(), deadline);
    if (!clock.sleep_for(std::min(left, delay), stop)) {
      report.end = WaitEnd::stopped;
      break;
    }
    if (left <= delay) {
      break;
    }
  }
  if (report.end != WaitEnd::stopped) {
    // An attempt the deadline cut short says nothing new: the answer before it stands (a GCS that
    // answered every poll is not "unreachable" because the deadline fell in the middle of one).
    const bool answered_last = last == Attempt::Kind::waiting || (last_cut_short && report.answered);
    report.end = answered_last ? WaitEnd::not_ready : WaitEnd::unreachable;
  }
  report.elapsed = ms_between(start, clock.now());
  return report;
}

}  // namespace launcher::util
