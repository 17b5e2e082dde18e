#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <stop_token>
#include <string>

#include "util/clock.hpp"

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

// One try of a wait loop, as the caller judged it.
struct Attempt {
  enum class Kind {
    done,     // the condition holds: stop waiting
    waiting,  // the other side answered, the condition does not hold yet: poll again, paced
    failed,   // no usable answer (DNS, connect, timeout, UNAVAILABLE): retry with backoff
    refused,  // an answer that retrying cannot change (credentials rejected): stop now
  };
  Kind kind = Kind::failed;
  std::string line;  // progress ("3/4 nodes alive; …") or trouble ("DNS stage failing: …")
};

struct WaitOptions {
  std::chrono::milliseconds timeout{300'000};
  // Attempts start at least `min_interval` apart; failures back off from there, doubling to
  // `max_backoff` with ±20 % jitter so a thousand pods retrying a restarted head do not arrive
  // in lockstep; an answer slower than a tenth of the interval stretches it (10× its time,
  // at most `max_backoff`): a server struggling with a large reply is not asked four times a
  // second.
  std::chrono::milliseconds min_interval{275};
  std::chrono::milliseconds max_backoff{2'000};
  std::chrono::milliseconds attempt_timeout{5'000};  // the most one attempt may take
  std::chrono::milliseconds progress_every{10'000};  // log at every change, and this often
};

// The pause paced_wait takes after an answered (`waiting`) attempt that took `attempt_time`: 10×
// its time, within [min_interval, max_backoff]. A caller that must know whether its attempt is the
// last before the deadline (the quorum taken at the join timeout) asks this, not a copy of it.
std::chrono::milliseconds pause_after_answer(const WaitOptions& options, std::chrono::milliseconds attempt_time);

enum class WaitEnd {
  ready,        // an attempt said done
  not_ready,    // the deadline passed; the last attempt was answered (`waiting`), or the deadline cut
                // it short after an earlier one was
  unreachable,  // the deadline passed; the last attempt failed, or none was made
  refused,      // an attempt said refused
  stopped,      // `stop` was requested
};

struct WaitReport {
  WaitEnd end = WaitEnd::unreachable;
  int attempts = 0;
  bool answered = false;           // some attempt was answered (waiting or done)
  std::string last_line;           // the last attempt's line
  std::string last_answer_line;    // the last answered attempt's line ("" if none)
  std::chrono::milliseconds elapsed{0};
};

// The one map from how a wait ended to the exit code (README "Exit codes"), shared by `wait`,
// `run` and the Redis preflight: ready 0; not_ready 75 (the join barrier timed out);
// unreachable 69; refused 69 (the other side rejected our credentials: retrying cannot help);
// stopped 128+signal (143 on SIGTERM).
int exit_code_of(WaitEnd end, int stop_signal);

// The deadline / backoff / throttled-progress skeleton every wait of raylaunch shares (the
// join barrier, a worker's wait for its head, the Redis preflight). Calls `attempt(timeout,
// stop)` until it says done or refused, the deadline passes or `stop` is requested; each call
// is given min(attempt_timeout, time left), at least 1 ms, as its timeout. The attempt is
// trusted to keep it; one that overruns (a call that cannot be cut short) ends after the
// deadline and then counts as cut short by it (see WaitEnd::not_ready). Logs `waiting` lines at
// info and `failed` lines at warning through spdlog, at every change and every
// `progress_every`, prefixed by `what` ("GCS at host:6379"). Never sleeps past the deadline,
// starts no attempt after a sleep that reached it, and ends a sleep at once when `stop` is
// requested.
WaitReport paced_wait(const std::string& what, const WaitOptions& options, Clock& clock, std::stop_token stop,
                      const std::function<Attempt(std::chrono::milliseconds timeout, std::stop_token stop)>& attempt);

// The one-line reason a wait did not end ready, in one style for every wait: "<what> not ready
// at the 30s deadline: <last line>", "<what>: <the refusal>", "wait for <what> stopped after
// 1.2s"; "" when it was ready. (The join barrier, whose end is about counts, words its own.)
std::string describe_end(const std::string& what, const WaitReport& report, const WaitOptions& options);

}  // namespace launcher::util
