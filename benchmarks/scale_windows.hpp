#pragma once
// How gcs_scale_client (scale_client.cpp) measures the GCS while one pod asks: windows of wall
// time that alternate rest (no calls) and asking, rest first and last, each recording the GCS's
// CPU. Each ask window's own cost is its CPU less the rate of the rest windows on either side: a
// GCS of 4,096 nodes spends ~0.65 of a core on its health checks and resource pulls alone, in
// bursts, and the machine's load drifts; neighbours cancel both better than one rest measured
// before. Windows of a multiple of 3 s hold whole health-check periods (1 s pulls, 3 s checks).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "util/clock.hpp"

namespace scale {

using Ms = std::chrono::duration<double, std::milli>;
using Duration = std::chrono::steady_clock::duration;

// CPU time of every thread of `pid` so far, in ms (clock ticks: 10 ms resolution).
inline double process_cpu_ms(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(f, text);  // one line
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string s; rest >> s;) {
    fields.push_back(s);
  }
  // After "(comm)": state is field 3 of stat(5), utime 14 and stime 15, i.e. [11] and [12] here.
  return static_cast<double>(std::stol(fields.at(11)) + std::stol(fields.at(12))) * 1000.0 /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The pause after a call that took `busy`, for a duty cycle of `duty` (1: none).
inline Duration pause_after(Duration busy, double duty) {
  return std::chrono::duration_cast<Duration>(busy * ((1 - duty) / duty));
}

// A clock whose sleeps are skipped but count: now() is real time plus what the sleeps skipped, so
// a wait loop keeps its production pacing (and sees its replies' real time) while it runs back to
// back. Below a duty cycle of 1 a sleep really pauses as long as the duty cycle asks (never longer
// than the sleep); either way now() moves by exactly the sleep. rest() pauses without the loop
// seeing any time pass.
class FastForwardClock final : public launcher::util::Clock {
 public:
  explicit FastForwardClock(double duty) : m_duty(duty) {}
  TimePoint now() override { return std::chrono::steady_clock::now() + m_skipped; }
  bool sleep_for(std::chrono::milliseconds d, std::stop_token stop) override {
    const auto real = std::min<Duration>(d, pause_after(std::chrono::steady_clock::now() - m_woke, m_duty));
    std::this_thread::sleep_for(real);
    m_skipped += d - real;
    m_woke = std::chrono::steady_clock::now();
    return !stop.stop_requested();
  }
  void rest(Duration d) {
    std::this_thread::sleep_for(d);
    m_skipped -= d;
    m_woke += d;
  }

 private:
  double m_duty;
  std::chrono::steady_clock::time_point m_woke = std::chrono::steady_clock::now();
  Duration m_skipped{0};
};

struct WindowPlan {
  int gcs_pid = 0;
  double window_s = 3;
  int windows = 5;  // ask windows; one rest window before each and one after the last
  long calls = 0;   // > 0: exactly this many calls and no windows (the bytes phase)
};

// Records the windows of one run. `rest` spends a rest window (sleeping, as the caller's clock
// needs it).
class Sampler {
 public:
  Sampler(WindowPlan plan, launcher::util::Clock& clock, std::function<void(Duration)> rest)
      : m_plan(plan), m_clock(clock), m_rest(std::move(rest)) {}

  // Before the first call: the first rest window.
  void begin() {
    if (m_plan.calls == 0) {
      rest_window();
      start();
    }
  }

  // After every call; true when the run is over. A finished ask window is followed by a rest one.
  bool tick(bool ok) {
    ++m_calls;
    ++m_total;
    m_errors += ok ? 0 : 1;
    if (m_plan.calls > 0) {
      return m_total >= m_plan.calls;
    }
    const double wall = Ms(std::chrono::steady_clock::now() - m_wall0).count();
    if (wall < m_plan.window_s * 1000) {
      return false;
    }
    m_windows.push_back({false, m_calls, wall, Ms(m_clock.now() - m_sim0).count(), cpu() - m_cpu0});
    rest_window();
    start();
    return asked() >= m_plan.windows;
  }

  std::string json() const {
    std::string w;
    for (const Window& x : m_windows) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "%s{\"rest\": %s, \"calls\": %ld, \"wall_ms\": %.1f, \"sim_ms\": %.1f, \"gcs_cpu_ms\": %.1f}",
                    w.empty() ? "" : ", ", x.rest ? "true" : "false", x.calls, x.wall_ms, x.sim_ms, x.gcs_cpu_ms);
      w += buf;
    }
    return "\"calls\": " + std::to_string(m_total) + ", \"errors\": " + std::to_string(m_errors) +
           ", \"windows\": [" + w + "]";
  }

 private:
  struct Window {
    bool rest;
    long calls;
    double wall_ms;
    double sim_ms;
    double gcs_cpu_ms;
  };
  double cpu() const { return m_plan.gcs_pid > 0 ? process_cpu_ms(m_plan.gcs_pid) : 0.0; }
  int asked() const {
    int n = 0;
    for (const Window& w : m_windows) {
      n += w.rest ? 0 : 1;
    }
    return n;
  }
  void start() {
    m_calls = 0;
    m_wall0 = std::chrono::steady_clock::now();
    m_sim0 = m_clock.now();
    m_cpu0 = cpu();
  }
  void rest_window() {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = cpu();
    m_rest(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(m_plan.window_s)));
    m_windows.push_back({true, 0, Ms(std::chrono::steady_clock::now() - t0).count(), 0, cpu() - cpu0});
  }

  WindowPlan m_plan;
  launcher::util::Clock& m_clock;
  std::function<void(Duration)> m_rest;
  std::vector<Window> m_windows;
  long m_calls = 0;
  long m_total = 0;
  long m_errors = 0;
  std::chrono::steady_clock::time_point m_wall0;
  launcher::util::Clock::TimePoint m_sim0;
  double m_cpu0 = 0;
};

}  // namespace scale
