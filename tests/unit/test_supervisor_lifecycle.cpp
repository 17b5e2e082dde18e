#include <catch2/catch.hpp>
#include <csignal>

#include "supervisor/lifecycle.hpp"

using namespace launcher;
using namespace launcher::supervisor;
using namespace std::chrono_literals;
using util::WaitEnd;

namespace {

// Effects as short words, so a test reads as the sequence a user would see.
std::string word(const Effect& e) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        auto child = [](Child c) { return c == Child::ray ? "ray" : c == Child::command ? "command" : "ray_stop"; };
        auto wait = [](Wait w) {
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
          }
          return "?";
        };
        if constexpr (std::is_same_v<T, StartWait>) {
          return std::string("wait:") + wait(x.which);
        } else if constexpr (std::is_same_v<T, CancelWait>) {
          return "cancel-wait";
        } else if constexpr (std::is_same_v<T, Spawn>) {
          return std::string("spawn:") + child(x.which);
        } else if constexpr (std::is_same_v<T, ExecCommand>) {
          return "exec";
        } else if constexpr (std::is_same_v<T, SendSignal>) {
          return std::string("signal:") + child(x.which) + ":" + std::to_string(x.signo);
        } else if constexpr (std::is_same_v<T, KillGroup>) {
          return std::string("kill:") + child(x.which);
        } else if constexpr (std::is_same_v<T, StartTimer>) {
          return std::string("timer:") + (x.which == Timer::term_grace ? "term" : "ray");
        } else if constexpr (std::is_same_v<T, CancelTimer>) {
          return std::string("untimer:") + (x.which == Timer::term_grace ? "term" : "ray");
        } else if constexpr (std::is_same_v<T, CheckLeftovers>) {
          return "leftovers?";
        } else if constexpr (std::is_same_v<T, Log>) {
          return "log";
        } else {
          return "exit:" + std::to_string(x.code);
        }
      },
      e);
}

std::vector<std::string> words(const std::vector<Effect>& effects, bool keep_logs = false) {
  std::vector<std::string> out;
  for (const Effect& e : effects) {
    if (keep_logs || !std::holds_alternative<Log>(e)) {
      out.push_back(word(e));
    }
  }
  return out;
}

std::string exit_reason(const std::vector<Effect>& effects) {
  for (const Effect& e : effects) {
    if (const auto* x = std::get_if<Exit>(&e)) {
      return x->reason;
    }
  }
  return "<no exit>";
}

using W = std::vector<std::string>;

Settings head() {
  Settings s;
  s.head = true;
  return s;
}

Settings worker() {
  Settings s;
  s.head = false;
  return s;
}

WaitFinished ready(Wait w) { return {w, WaitEnd::ready, ""}; }
ChildExited exited(Child c, int code, std::string how, std::chrono::milliseconds ran = 0ms) {
  return {c, code, std::move(how), ran, ""};
}

// Drives a head to the point where the command runs.
Lifecycle head_running_command(Settings s = head()) {
  Lifecycle l(s);
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  l.on(ready(Wait::join));
  REQUIRE(l.phase() == Phase::running_command);
  return l;
}

}  // namespace

TEST_CASE("head: ray start, its GCS, the barrier, then the command", "[lifecycle]") {
  Lifecycle l(head());
  CHECK(words(l.on(Start{})) == W{"spawn:ray", "wait:local_gcs"});
  CHECK(words(l.on(ready(Wait::local_gcs))) == W{"wait:join"});
  CHECK(words(l.on(ready(Wait::join))) == W{"spawn:command"});
  CHECK(l.main_child() == Child::command);
}

TEST_CASE("head: the command's status is the exit code, after Ray is stopped", "[lifecycle]") {
  for (int code : {0, 1, 2, 126, 127, 255, 137}) {
    INFO(code);
    Lifecycle l = head_running_command();
    CHECK(words(l.on(exited(Child::command, code, "exited", 5s))) ==
          W{"kill:command", "signal:ray:15", "timer:ray"});
    CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"untimer:ray", "leftovers?"});
    const auto last = l.on(Leftovers{0});
    CHECK(words(last) == W{"exit:" + std::to_string(code)});
    CHECK(exit_reason(last) == "command exited after 5.0s");
  }
}

TEST_CASE("head with --on-success stay: Ray stays up after success, SIGTERM exits 0", "[lifecycle]") {
  Settings s = head();
  s.on_success = OnSuccess::stay;
  Lifecycle l = head_running_command(s);
  CHECK(words(l.on(exited(Child::command, 0, "exited with 0"))) == W{"kill:command"});
  CHECK(l.phase() == Phase::staying);
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:ray:15", "timer:ray"});
  l.on(exited(Child::ray, 1, "exited with 1"));
  const auto last = l.on(Leftovers{0});
  CHECK(words(last) == W{"exit:0"});
}

TEST_CASE("stay applies to success only: a failure always exits", "[lifecycle]") {
  Settings s = head();
  s.on_success = OnSuccess::stay;
  Lifecycle l = head_running_command(s);
  l.on(exited(Child::command, 3, "exited with 3"));
  CHECK(l.phase() == Phase::stopping);
}

TEST_CASE("SIGTERM in every phase: nothing left, exit 143", "[lifecycle][signals]") {
  SECTION("before anything started (worker waiting for its head)") {
    Lifecycle l(worker());
    l.on(Start{});
    const auto e = l.on(SignalReceived{SIGTERM});
    CHECK(words(e) == W{"cancel-wait", "exit:143"});
    CHECK(exit_reason(e) == "stopped by SIGTERM while waiting for the head; nothing was started");
  }
  SECTION("while Ray starts") {
    Lifecycle l(head());
    l.on(Start{});
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"cancel-wait", "signal:ray:15", "timer:ray"});
    CHECK(words(l.on(WaitFinished{Wait::local_gcs, WaitEnd::stopped, ""})).empty());
    CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"untimer:ray", "leftovers?"});
    CHECK(words(l.on(Leftovers{0})) == W{"exit:143"});
  }
  SECTION("during the join barrier") {
    Lifecycle l(head());
    l.on(Start{});
    l.on(ready(Wait::local_gcs));
    const auto e = l.on(SignalReceived{SIGTERM});
    CHECK(words(e) == W{"cancel-wait", "signal:ray:15", "timer:ray"});
  }
  SECTION("during the command: forwarded, then the grace, then SIGKILL to its group") {
    Lifecycle l = head_running_command();
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command:15", "timer:term"});
    CHECK(words(l.on(TimerFired{Timer::term_grace})) == W{"kill:command"});
    CHECK(words(l.on(exited(Child::command, 137, "killed by SIGKILL"))) ==
          W{"untimer:term", "kill:command", "signal:ray:15", "timer:ray"});
    l.on(exited(Child::ray, 1, "exited with 1"));
    const auto last = l.on(Leftovers{0});
    CHECK(words(last) == W{"exit:143"});
    CHECK(exit_reason(last) == "stopped by SIGTERM while the command ran");
  }
  SECTION("on a worker running Ray") {
    Lifecycle l(worker());
    l.on(Start{});
    l.on(ready(Wait::head));
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:ray:15", "timer:ray"});
  }
}

TEST_CASE("SIGINT ends the run like SIGTERM (exit 130), other signals are only forwarded", "[lifecycle][signals]") {
  for (int sig : {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) {
    INFO(sig);
    Lifecycle l = head_running_command();
    CHECK(words(l.on(SignalReceived{sig})) == W{"signal:command:" + std::to_string(sig)});
    CHECK(l.phase() == Phase::running_command);
    Lifecycle before(head());
    before.on(Start{});
    CHECK(words(before.on(SignalReceived{sig})) == W{"signal:ray:" + std::to_string(sig)});
  }
  Lifecycle l = head_running_command();
  CHECK(words(l.on(SignalReceived{SIGINT})) == W{"signal:command:2", "timer:term"});
  l.on(exited(Child::command, 130, "killed by SIGINT"));
  l.on(exited(Child::ray, 1, "exited with 1"));
  CHECK(words(l.on(Leftovers{0})) == W{"exit:130"});
}

TEST_CASE("Ray dying under the command stops the command with its grace and exits 69", "[lifecycle]") {
  Lifecycle l = head_running_command();
  ChildExited ray = exited(Child::ray, 1, "exited with 1");
  ray.detail = "Some Ray subprocesses exited unexpectedly";
  CHECK(words(l.on(ray)) == W{"signal:command:15", "timer:term"});
  const auto e = l.on(exited(Child::command, 143, "killed by SIGTERM"));
  CHECK(words(e) == W{"untimer:term", "kill:command", "leftovers?"});
  const auto last = l.on(Leftovers{0});
  CHECK(words(last) == W{"exit:69"});
  CHECK(exit_reason(last) ==
        "Ray died while the command ran (ray start exited with 1): Some Ray subprocesses exited unexpectedly");
}

TEST_CASE("ray start failing before the cluster is up exits 69 with its output", "[lifecycle]") {
  Lifecycle l(head());
  l.on(Start{});
  ChildExited ray = exited(Child::ray, 1, "exited with 1");
  ray.detail = "ValueError: bad option";
  CHECK(words(l.on(ray)) == W{"cancel-wait", "leftovers?"});
  const auto last = l.on(Leftovers{0});
  CHECK(exit_reason(last) == "ray start exited with 1 while Ray was starting: ValueError: bad option");
  CHECK(words(last) == W{"exit:69"});
}

TEST_CASE("the join barrier's end decides the exit code", "[lifecycle]") {
  Lifecycle l(head());
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  const auto e = l.on(WaitFinished{Wait::join, WaitEnd::not_ready, "join timed out after 10m: 3/4 nodes alive; missing: training-2"});
  CHECK(words(e) == W{"signal:ray:15", "timer:ray"});
  l.on(exited(Child::ray, 1, "exited with 1"));
  const auto last = l.on(Leftovers{0});
  CHECK(words(last) == W{"exit:75"});
  CHECK(exit_reason(last) == "join timed out after 10m: 3/4 nodes alive; missing: training-2");
}

TEST_CASE("Ray processes outliving ray start get `ray stop`, bounded by the grace", "[lifecycle]") {
  Lifecycle l = head_running_command();
  l.on(exited(Child::command, 0, "exited with 0"));
  l.on(TimerFired{Timer::ray_stop_grace});  // ray start ignored SIGTERM
  CHECK(words(l.on(exited(Child::ray, 137, "killed by SIGKILL"))) == W{"untimer:ray", "leftovers?"});
  CHECK(words(l.on(Leftovers{3})) == W{"spawn:ray_stop", "timer:ray"});
  CHECK(words(l.on(exited(Child::ray_stop, 0, "exited with 0"))) == W{"untimer:ray", "exit:0"});
}

TEST_CASE("worker: wait for the head, run Ray, exit 69 with a diagnosis when Ray exits", "[lifecycle]") {
  Lifecycle l(worker());
  CHECK(words(l.on(Start{})) == W{"wait:head"});
  CHECK(words(l.on(ready(Wait::head))) == W{"spawn:ray"});
  CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"wait:diagnose"});
  CHECK(words(l.on(WaitFinished{Wait::diagnose, WaitEnd::unreachable, "head GCS at h:6379 unreachable"})) ==
        W{"leftovers?"});
  const auto last = l.on(Leftovers{0});
  CHECK(exit_reason(last) == "ray start exited with 1 (head GCS at h:6379 unreachable)");
  CHECK(words(last) == W{"exit:69"});
}

TEST_CASE("worker: an unreachable head ends the run with 69 and nothing started", "[lifecycle]") {
  Lifecycle l(worker());
  l.on(Start{});
  const auto e = l.on(WaitFinished{Wait::head, WaitEnd::unreachable, "head GCS at h:6379 not ready"});
  CHECK(words(e) == W{"exit:69"});
}

TEST_CASE("preflight: Redis first, a refusal ends the run before ray start", "[lifecycle]") {
  Settings s = head();
  s.preflight = true;
  Lifecycle ok(s);
  CHECK(words(ok.on(Start{})) == W{"wait:preflight"});
  CHECK(words(ok.on(ready(Wait::preflight))) == W{"spawn:ray", "wait:local_gcs"});
  Lifecycle refused(s);
  refused.on(Start{});
  CHECK(words(refused.on(WaitFinished{Wait::preflight, WaitEnd::refused, "WRONGPASS"})) == W{"exit:69"});
}

TEST_CASE("exec mode: ray start without --block returns 0, the command replaces raylaunch", "[lifecycle]") {
  Settings s = head();
  s.exec = true;
  Lifecycle l(s);
  l.on(Start{});
  CHECK(words(l.on(exited(Child::ray, 0, "exited with 0"))).empty());
  l.on(ready(Wait::local_gcs));
  CHECK(words(l.on(ready(Wait::join))) == W{"exec"});
  // A failed execve ends the run like a command that exited 127; Ray's processes are stopped.
  CHECK(words(l.on(exited(Child::command, 127, "not found"))) == W{"kill:command", "leftovers?"});
  CHECK(words(l.on(Leftovers{2})) == W{"spawn:ray_stop", "timer:ray"});
  CHECK(words(l.on(exited(Child::ray_stop, 0, "exited with 0"))) == W{"untimer:ray", "exit:127"});
}
