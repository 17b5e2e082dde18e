// The supervisor's Lifecycle, as a matrix after dumb-init's tests (signal × phase × child kind
// × forwarding mode): events in, effects out, no processes. The end-to-end counterparts run the
// static binary (tests/supervisor/test_signals.sh, test_group_signals.sh).
#include <catch2/catch.hpp>
#include <algorithm>
#include <csignal>

#include "lifecycle_driver.hpp"
#include "supervisor/lifecycle.hpp"

using namespace launcher;
using namespace launcher::supervisor;
using namespace std::chrono_literals;
using util::WaitEnd;

namespace {

using namespace lifecycle_test;

// The phases a run passes through, each reached by its own events.
enum class At { waiting_head, preflight, starting_ray, joining, running_ray, running_command, staying };
const char* at_name(At a) {
  switch (a) {
    case At::waiting_head:
      return "waiting for the head";
    case At::preflight:
      return "waiting for Redis";
    case At::starting_ray:
      return "ray starting";
    case At::joining:
      return "join barrier";
    case At::running_ray:
      return "worker running Ray";
    case At::running_command:
      return "command running";
    case At::staying:
      return "staying after success";
  }
  return "?";
}

Lifecycle reach(At at) {
  switch (at) {
    case At::waiting_head: {
      Lifecycle l(worker());
      l.on(Start{});
      return l;
    }
    case At::preflight: {
      Settings s = head();
      s.preflight = true;
      Lifecycle l(s);
      l.on(Start{});
      return l;
    }
    case At::starting_ray: {
      Lifecycle l(head());
      l.on(Start{});
      return l;
    }
    case At::joining: {
      Lifecycle l(head());
      l.on(Start{});
      l.on(ready(Wait::local_gcs));
      return l;
    }
    case At::running_ray: {
      Lifecycle l(worker());
      l.on(Start{});
      l.on(ready(Wait::head));
      return l;
    }
    case At::running_command:
      return head_running_command();
    case At::staying: {
      Settings s = head();
      s.on_success = OnSuccess::stay;
      Lifecycle l = head_running_command(s);
      l.on(exited(Child::command, 0, "exited with 0"));
      return l;
    }
  }
  return Lifecycle(head());
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
    CHECK(words(l.on(exited(Child::command, code, "exited", 0, 5s))) == W{"signal:ray:15", "timer:ray"});
    CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"untimer:ray", "leftovers?"});
    CHECK(words(l.on(Leftovers{0})) == W{"stragglers?"});
    const auto last = l.on(Stragglers{0, ""});
    CHECK(words(last) == W{"exit:" + std::to_string(code)});
    CHECK(exit_reason(last) == "command exited after 5.0s");
  }
}

// --- signal × phase ---------------------------------------------------------------------------

TEST_CASE("SIGTERM and SIGINT end the run in every phase with 128+N, nothing left", "[lifecycle][signals]") {
  for (int sig : {SIGTERM, SIGINT}) {
    for (At at : {At::waiting_head, At::preflight, At::starting_ray, At::joining, At::running_ray,
                  At::running_command, At::staying}) {
      INFO(at_name(at) << ", signal " << sig);
      Lifecycle l = reach(at);
      auto all = l.on(SignalReceived{sig});
      const bool before_start = at == At::waiting_head || at == At::preflight;
      if (before_start) {
        CHECK(words(all) == W{"cancel-wait", "stragglers?"});  // nothing was started
      } else if (at == At::running_command) {
        CHECK(words(all) == W{"signal:command-group:" + std::to_string(sig), "timer:term"});
        auto more = l.on(exited(Child::command, 128 + sig, "killed"));
        CHECK(words(more) == W{"untimer:term", "signal:ray:15", "timer:ray"});
      } else {
        // Ray (alone: `ray start --block` stops its own processes in order), with its grace.
        const W w = words(all);
        CHECK(w.back() == "timer:ray");
        CHECK(std::count(w.begin(), w.end(), "signal:ray:15") == 1);
      }
      std::vector<Effect> end = before_start ? l.on(Stragglers{0, ""}) : ray_gone(l);
      const Exit* x = exit_of(end);
      REQUIRE(x != nullptr);
      CHECK(x->code == (at == At::staying ? 0 : 128 + sig));
      CHECK(l.phase() == Phase::done);
    }
  }
}

TEST_CASE("every other signal is only forwarded, to the command alone: ray start never gets one",
          "[lifecycle][signals]") {
  // Ray's CLI dies of SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM (Python's default action):
  // `kill -USR1 1` for a hung NCCL job's stack dumps must not take the cluster down (issue 26 item 4).
  for (int sig : {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM}) {
    INFO(sig);
    for (CommandSignals mode : {CommandSignals::group, CommandSignals::leader}) {
      Lifecycle l = head_running_command(head(mode));
      const std::string to = mode == CommandSignals::group ? "signal:command-group:" : "signal:command:";
      CHECK(words(l.on(SignalReceived{sig})) == W{to + std::to_string(sig)});
      CHECK(l.phase() == Phase::running_command);
    }
    for (At at : {At::starting_ray, At::joining, At::running_ray, At::staying, At::waiting_head}) {
      INFO(at_name(at));
      Lifecycle l = reach(at);
      const Phase before = l.phase();
      const auto effects = l.on(SignalReceived{sig});
      CHECK(words(effects).empty());
      CHECK(l.phase() == before);
      if (at != At::waiting_head) {
        CHECK_THAT(logs(effects), Catch::Contains("not forwarded") && Catch::Contains("ray start"));
      }
    }
  }
}

// --- signal × child kind × forwarding mode, while the command runs ----------------------------

TEST_CASE("the term grace is the command group's: a wrapper's trainer is signalled and graced",
          "[lifecycle][signals]") {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string n = std::to_string(sig);
    SECTION("group mode, signal " + n + ": the wrapper dies, the trainer saw it too and keeps the rest of the grace") {
      Lifecycle l = head_running_command(head(CommandSignals::group));
      CHECK(words(l.on(SignalReceived{sig})) == W{"signal:command-group:" + n, "timer:term"});
      // bash -c '…; python train.py': bash dies at once, python is still checkpointing.
      const auto e = l.on(exited(Child::command, 128 + sig, "killed", 1));
      CHECK(words(e) == W{"watch:command"});  // no SIGKILL, no second signal, the timer runs on
      CHECK(logs(e).find("1 process of its group still run, with the rest of the term grace") != std::string::npos);
      CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "signal:ray:15", "timer:ray"});
      CHECK(exit_of(ray_gone(l))->code == 128 + sig);
    }
    SECTION("leader mode, signal " + n + ": the rest of the group gets it once the leader is gone") {
      Lifecycle l = head_running_command(head(CommandSignals::leader));
      CHECK(words(l.on(SignalReceived{sig})) == W{"signal:command:" + n, "timer:term"});
      CHECK(words(l.on(exited(Child::command, 128 + sig, "killed", 2))) ==
            W{"signal:command-group:" + n, "watch:command"});
      CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "signal:ray:15", "timer:ray"});
      CHECK(exit_of(ray_gone(l))->code == 128 + sig);
    }
    SECTION("signal " + n + ": what is left of the group when the grace ends gets SIGKILL, then Ray stops") {
      Lifecycle l = head_running_command();
      l.on(SignalReceived{sig});
      l.on(exited(Child::command, 128 + sig, "killed", 1));
      const auto e = l.on(TimerFired{Timer::term_grace});
      CHECK(words(e) == W{"kill:command", "signal:ray:15", "timer:ray"});
      CHECK(logs(e).find("did not exit within the term grace") != std::string::npos);
      CHECK(words(l.on(GroupGone{Child::command})).empty());  // too late to matter
      CHECK(exit_of(ray_gone(l))->code == 128 + sig);
    }
    SECTION("signal " + n + ": a stubborn leader gets SIGKILL with its group; its exit then stops Ray") {
      Lifecycle l = head_running_command();
      l.on(SignalReceived{sig});
      CHECK(words(l.on(TimerFired{Timer::term_grace})) == W{"kill:command", "timer:killed"});
      // The group is dying of SIGKILL as the leader is reaped: not waited for again.
      CHECK(words(l.on(exited(Child::command, 137, "killed by SIGKILL", 3))) ==
            W{"untimer:killed", "untimer:term", "signal:ray:15", "timer:ray"});
      CHECK(exit_of(ray_gone(l))->code == 128 + sig);
    }
  }
}

TEST_CASE("a command that exits on its own: its group's leftovers get SIGTERM and the grace, not SIGKILL",
          "[lifecycle][signals]") {
  for (int code : {0, 3}) {
    INFO(code);
    Lifecycle l = head_running_command();
    const auto e = l.on(exited(Child::command, code, "exited", 2));
    CHECK(words(e) == W{"signal:command-group:15", "timer:term", "watch:command"});
    CHECK(logs(e).find("2 processes of its group still run: SIGTERM to them, SIGKILL after the term grace") !=
          std::string::npos);
    CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "signal:ray:15", "timer:ray"});
    CHECK(exit_of(ray_gone(l))->code == code);
  }
  SECTION("and with --on-success stay, the head stays once they are gone") {
    Settings s = head();
    s.on_success = OnSuccess::stay;
    Lifecycle l = head_running_command(s);
    CHECK(words(l.on(exited(Child::command, 0, "exited with 0", 1))) ==
          W{"signal:command-group:15", "timer:term", "watch:command"});
    CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term"});
    CHECK(l.phase() == Phase::staying);
  }
  SECTION("SIGTERM while they are still going: Ray is stopped once they are gone, exit 0") {
    Settings s = head();
    s.on_success = OnSuccess::stay;
    Lifecycle l = head_running_command(s);
    l.on(exited(Child::command, 0, "exited with 0", 1));
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command-group:15"});
    CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "signal:ray:15", "timer:ray"});
    CHECK(exit_of(ray_gone(l))->code == 0);
  }
}

TEST_CASE("a second SIGTERM or SIGINT reaches the command and what is left of its group", "[lifecycle][signals]") {
  Lifecycle l = head_running_command(head(CommandSignals::leader));
  l.on(SignalReceived{SIGTERM});
  CHECK(words(l.on(SignalReceived{SIGINT})) == W{"signal:command:2"});
  l.on(exited(Child::command, 143, "killed", 1));
  CHECK(words(l.on(SignalReceived{SIGINT})) == W{"signal:command-group:2"});
}

// --- what outlives everything -----------------------------------------------------------------

TEST_CASE("stragglers (a daemon the command double-forked) get SIGTERM, the grace, then SIGKILL",
          "[lifecycle]") {
  Lifecycle l = head_running_command();
  l.on(exited(Child::command, 0, "exited with 0"));
  l.on(exited(Child::ray, 1, "exited with 1"));
  CHECK(words(l.on(Leftovers{0})) == W{"stragglers?"});  // not Ray's: no `ray stop` for it
  const auto e = l.on(Stragglers{1, "pid 42 (daemon)"});
  CHECK(words(e) == W{"signal:stragglers:15", "timer:stragglers"});
  CHECK(logs(e).find("1 process outlived the command and Ray (pid 42 (daemon)): SIGTERM") != std::string::npos);
  SECTION("they exit") { CHECK(words(l.on(Stragglers{0, ""})) == W{"untimer:stragglers", "exit:0"}); }
  SECTION("they do not") { CHECK(words(l.on(TimerFired{Timer::stragglers})) == W{"signal:stragglers:9", "exit:0"}); }
}

// --- the rest of the lifecycle ------------------------------------------------------------------

TEST_CASE("head with --on-success stay: Ray stays up after success, SIGTERM exits 0", "[lifecycle]") {
  Settings s = head();
  s.on_success = OnSuccess::stay;
  Lifecycle l = head_running_command(s);
  CHECK(words(l.on(exited(Child::command, 0, "exited with 0"))).empty());
  CHECK(l.phase() == Phase::staying);
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:ray:15", "timer:ray"});
  CHECK(words(ray_gone(l)) == W{"untimer:ray", "leftovers?", "stragglers?", "exit:0"});
}

TEST_CASE("stay applies to success only: a failure always exits", "[lifecycle]") {
  Settings s = head();
  s.on_success = OnSuccess::stay;
  Lifecycle l = head_running_command(s);
  l.on(exited(Child::command, 3, "exited with 3"));
  CHECK(l.phase() == Phase::stopping);
}

TEST_CASE("Ray dying under the command stops the command with its grace and exits 69", "[lifecycle]") {
  Lifecycle l = head_running_command();
  ChildExited ray = exited(Child::ray, 1, "exited with 1");
  ray.detail = "Some Ray subprocesses exited unexpectedly";
  CHECK(words(l.on(ray)) == W{"signal:command-group:15", "timer:term"});
  const auto e = l.on(exited(Child::command, 143, "killed by SIGTERM"));
  CHECK(words(e) == W{"untimer:term", "leftovers?"});
  l.on(Leftovers{0});
  const auto last = l.on(Stragglers{0, ""});
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
  l.on(Leftovers{0});
  const auto last = l.on(Stragglers{0, ""});
  CHECK(exit_reason(last) == "ray start exited with 1 while Ray was starting: ValueError: bad option");
  CHECK(words(last) == W{"exit:69"});
}

TEST_CASE("the join barrier's end decides the exit code", "[lifecycle]") {
  Lifecycle l(head());
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  const auto e = l.on(WaitFinished{Wait::join, WaitEnd::not_ready, "join timed out after 10m: 3/4 nodes alive; missing: training-2", false});
  CHECK(words(e) == W{"signal:ray:15", "timer:ray"});
  const auto last = ray_gone(l);
  CHECK(exit_of(last)->code == 75);
  CHECK(exit_reason(last) == "join timed out after 10m: 3/4 nodes alive; missing: training-2");
}

TEST_CASE("a wait that threw (a bug) ends the run with 70 and its reason", "[lifecycle]") {
  Lifecycle l(head());
  l.on(Start{});
  const auto e = l.on(WaitFinished{Wait::local_gcs, WaitEnd::unreachable, "internal error in raylaunch's wait: boom", true});
  CHECK(words(e) == W{"signal:ray:15", "timer:ray"});
  CHECK(exit_of(ray_gone(l))->code == 70);
}

TEST_CASE("Ray processes outliving ray start get `ray stop`, bounded by the grace", "[lifecycle]") {
  Lifecycle l = head_running_command();
  l.on(exited(Child::command, 0, "exited with 0"));
  l.on(TimerFired{Timer::ray_stop_grace});  // ray start ignored SIGTERM
  CHECK(words(l.on(exited(Child::ray, 137, "killed by SIGKILL"))) == W{"untimer:killed", "untimer:ray", "leftovers?"});
  CHECK(words(l.on(Leftovers{3})) == W{"spawn:ray_stop", "timer:ray"});
  CHECK(words(l.on(exited(Child::ray_stop, 0, "exited with 0"))) == W{"untimer:ray", "stragglers?"});
  CHECK(words(l.on(Stragglers{0, ""})) == W{"exit:0"});
}

TEST_CASE("worker: wait for the head, run Ray, exit 69 with a diagnosis when Ray exits", "[lifecycle]") {
  Lifecycle l(worker());
  CHECK(words(l.on(Start{})) == W{"wait:head"});
  CHECK(words(l.on(ready(Wait::head))) == W{"spawn:ray"});
  CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"wait:diagnose"});
  CHECK(words(l.on(WaitFinished{Wait::diagnose, WaitEnd::unreachable, "head GCS at h:6379 unreachable", false})) ==
        W{"leftovers?"});
  l.on(Leftovers{0});
  const auto last = l.on(Stragglers{0, ""});
  CHECK(exit_reason(last) == "ray start exited with 1 (head GCS at h:6379 unreachable)");
  CHECK(words(last) == W{"exit:69"});
}

TEST_CASE("worker: SIGTERM while the head is being looked at ends the look, exit 69 at once", "[lifecycle][signals]") {
  Lifecycle l(worker());
  l.on(Start{});
  l.on(ready(Wait::head));
  l.on(exited(Child::ray, 1, "exited with 1"));  // the diagnose wait starts
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"cancel-wait", "leftovers?"});
  CHECK(words(l.on(WaitFinished{Wait::diagnose, WaitEnd::stopped, "", false})).empty());
  l.on(Leftovers{0});
  const auto last = l.on(Stragglers{0, ""});
  CHECK(exit_of(last)->code == 69);
  CHECK(exit_reason(last) == "ray start exited with 1 (stopped by SIGTERM before the head was looked at)");
}

TEST_CASE("worker: an unreachable head ends the run with 69 and nothing started", "[lifecycle]") {
  Lifecycle l(worker());
  l.on(Start{});
  CHECK(words(l.on(WaitFinished{Wait::head, WaitEnd::unreachable, "head GCS at h:6379 not ready", false})) ==
        W{"stragglers?"});
  CHECK(words(l.on(Stragglers{0, ""})) == W{"exit:69"});
}

TEST_CASE("preflight: Redis first, a refusal ends the run before ray start", "[lifecycle]") {
  Settings s = head();
  s.preflight = true;
  Lifecycle ok(s);
  CHECK(words(ok.on(Start{})) == W{"wait:preflight"});
  CHECK(words(ok.on(ready(Wait::preflight))) == W{"spawn:ray", "wait:local_gcs"});
  Lifecycle refused(s);
  refused.on(Start{});
  refused.on(WaitFinished{Wait::preflight, WaitEnd::refused, "WRONGPASS", false});
  CHECK(words(refused.on(Stragglers{0, ""})) == W{"exit:69"});
}

TEST_CASE("exec mode: ray start without --block returns 0, the command replaces raylaunch", "[lifecycle]") {
  Settings s = head();
  s.exec = true;
  Lifecycle l(s);
  l.on(Start{});
  CHECK(words(l.on(exited(Child::ray, 0, "exited with 0"))).empty());
  l.on(ready(Wait::local_gcs));
  CHECK(words(l.on(ready(Wait::join))) == W{"exec"});
  // A failed execve ends the run like a command that exited 126; Ray's processes are stopped.
  CHECK(words(l.on(exited(Child::command, 126, "could not be executed"))) == W{"leftovers?"});
  CHECK(words(l.on(Leftovers{2})) == W{"spawn:ray_stop", "timer:ray"});
  CHECK(words(l.on(exited(Child::ray_stop, 0, "exited with 0"))) == W{"untimer:ray", "stragglers?"});
  CHECK(words(l.on(Stragglers{0, ""})) == W{"exit:126"});
}

TEST_CASE("exec mode: a barrier that passes before ray start returns waits for it, then execs", "[lifecycle]") {
  // Seen under load (run.test_exec_errors): ray start's exit 0 after the exec read as Ray dying (69).
  Settings s = head();
  s.exec = true;
  Lifecycle l(s);
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  const auto passed = l.on(ready(Wait::join));
  CHECK(words(passed).empty());
  CHECK_THAT(logs(passed), Catch::Contains("once ray start returns"));
  CHECK(words(l.on(exited(Child::ray, 0, "exited with 0"))) == W{"exec"});
  CHECK(words(l.on(exited(Child::command, 126, "could not be executed"))) == W{"leftovers?"});
  l.on(Leftovers{0});
  CHECK(words(l.on(Stragglers{0, ""})) == W{"exit:126"});
  // ray start failing instead: nothing is executed, Ray's failure is the reason.
  Lifecycle failed(s);
  failed.on(Start{});
  failed.on(ready(Wait::local_gcs));
  failed.on(ready(Wait::join));
  const auto effects = words(failed.on(exited(Child::ray, 1, "exited with 1")));
  CHECK(std::find(effects.begin(), effects.end(), "exec") == effects.end());
  failed.on(Leftovers{0});
  CHECK(words(failed.on(Stragglers{0, ""})) == W{"exit:69"});
}

TEST_CASE("exec mode: SIGTERM as the exec was under way ends the run, the command never ran", "[lifecycle][signals]") {
  Settings s = head();
  s.exec = true;
  Lifecycle l(s);
  l.on(Start{});
  l.on(exited(Child::ray, 0, "exited with 0"));
  l.on(ready(Wait::local_gcs));
  l.on(ready(Wait::join));
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command-group:15", "timer:term"});
  CHECK(words(l.on(exited(Child::command, 143, "was not started"))) == W{"untimer:term", "leftovers?"});
  l.on(Leftovers{0});
  CHECK(words(l.on(Stragglers{0, ""})) == W{"exit:143"});
}
