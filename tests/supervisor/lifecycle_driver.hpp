#pragma once
// What the Lifecycle tests share: effects as short words, so that a test reads as the sequence a
// user would see, and the events that drive a run to a phase.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "supervisor/lifecycle.hpp"

namespace lifecycle_test {

using namespace launcher;
using namespace launcher::supervisor;
using namespace std::chrono_literals;
using util::WaitEnd;

inline const char* child(Child c) { return c == Child::ray ? "ray" : c == Child::command ? "command" : "ray_stop"; }

inline const char* wait_name(Wait w) {
  switch (w) {
    case Wait::preflight:
      return "preflight";
    case Wait::local_gcs:
      return "local_gcs";
    case Wait::join:
      return "join";
    case Wait::head:
      return "head";
    case Wait::diagnose:
      return "diagnose";
    case Wait::watch:
      return "watch";
    case Wait::drain:
      return "drain";
  }
  return "?";
}

inline const char* timer_name(Timer t) {
  switch (t) {
    case Timer::term_grace:
      return "term";
    case Timer::ray_stop_grace:
      return "ray";
    case Timer::stragglers:
      return "stragglers";
    case Timer::killed:
      return "killed";
  }
  return "?";
}

// Effects as short words, so a test reads as the sequence a user would see.
inline std::string word(const Effect& e) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, StartWait>) {
          return std::string("wait:") + wait_name(x.which);
        } else if constexpr (std::is_same_v<T, CancelWait>) {
          return "cancel-wait";
        } else if constexpr (std::is_same_v<T, Spawn>) {
          return std::string("spawn:") + child(x.which);
        } else if constexpr (std::is_same_v<T, ExecCommand>) {
          return "exec";
        } else if constexpr (std::is_same_v<T, SendSignal>) {
          return std::string("signal:") + child(x.which) + (x.group ? "-group:" : ":") + std::to_string(x.signo);
        } else if constexpr (std::is_same_v<T, KillGroup>) {
          return std::string("kill:") + child(x.which);
        } else if constexpr (std::is_same_v<T, WatchGroup>) {
          return std::string("watch:") + child(x.which);
        } else if constexpr (std::is_same_v<T, StartTimer>) {
          return std::string("timer:") + timer_name(x.which);
        } else if constexpr (std::is_same_v<T, CancelTimer>) {
          return std::string("untimer:") + timer_name(x.which);
        } else if constexpr (std::is_same_v<T, CheckLeftovers>) {
          return "leftovers?";
        } else if constexpr (std::is_same_v<T, CheckStragglers>) {
          return "stragglers?";
        } else if constexpr (std::is_same_v<T, SignalStragglers>) {
          return "signal:stragglers:" + std::to_string(x.signo);
        } else if constexpr (std::is_same_v<T, Log>) {
          return "log";
        } else if constexpr (std::is_same_v<T, StartWatches>) {
          return "watches:start";
        } else if constexpr (std::is_same_v<T, StopWatches>) {
          return "watches:stop";
        } else if constexpr (std::is_same_v<T, RecordRun>) {
          return "record:" + std::to_string(x.runs);
        } else {
          return "exit:" + std::to_string(x.code);
        }
      },
      e);
}

inline std::vector<std::string> words(const std::vector<Effect>& effects) {
  std::vector<std::string> out;
  for (const Effect& e : effects) {
    if (!std::holds_alternative<Log>(e)) {
      out.push_back(word(e));
    }
  }
  return out;
}

inline std::string logs(const std::vector<Effect>& effects) {
  std::string out;
  for (const Effect& e : effects) {
    if (const auto* l = std::get_if<Log>(&e)) {
      out += l->text + "\n";
    }
  }
  return out;
}

inline const Exit* exit_of(const std::vector<Effect>& effects) {
  for (const Effect& e : effects) {
    if (const auto* x = std::get_if<Exit>(&e)) {
      return x;
    }
  }
  return nullptr;
}

inline std::string exit_reason(const std::vector<Effect>& effects) {
  const Exit* x = exit_of(effects);
  return x ? x->reason : "<no exit>";
}

using W = std::vector<std::string>;

inline Settings head(CommandSignals mode = CommandSignals::group) {
  Settings s;
  s.head = true;
  s.command_signals = mode;
  return s;
}

inline Settings worker() {
  Settings s;
  s.head = false;
  return s;
}

inline WaitFinished ready(Wait w) { return {w, WaitEnd::ready, "", false}; }
inline ChildExited exited(Child c, int code, std::string how, int group_left = 0,
                          std::optional<std::chrono::milliseconds> ran = std::nullopt) {
  return {c, code, std::move(how), ran, "", group_left};
}

// Drives a head to the point where the command runs.
inline Lifecycle head_running_command(Settings s = head()) {
  Lifecycle l(s);
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  l.on(ready(Wait::join));
  REQUIRE(l.phase() == Phase::running_command);
  return l;
}

// The end every run has once Ray has exited: nothing of Ray's left, no stragglers.
inline std::vector<Effect> ray_gone(Lifecycle& l) {
  std::vector<Effect> all = l.on(exited(Child::ray, 1, "exited with 1"));
  for (const Event& e : {Event{Leftovers{0}}, Event{Stragglers{0, ""}}}) {
    auto more = l.on(e);
    all.insert(all.end(), more.begin(), more.end());
  }
  return all;
}

}  // namespace lifecycle_test
