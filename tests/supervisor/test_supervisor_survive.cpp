// What a run does to survive what ends runs (issue 19), in the Lifecycle alone: a worker's watch
// on its head and the drain of its node on SIGTERM; the head's in-place restarts within a
// budget; the command's RAYLAUNCH_NODES_PRESENT and RAYLAUNCH_RESTART_COUNT. The real-Ray
// counterparts: tests/kube/scenarios/test_busy_worker_drained.py and its siblings.
#include <catch2/catch.hpp>
#include <csignal>

#include "lifecycle_driver.hpp"
#include "supervisor/restart_budget.hpp"

using namespace lifecycle_test;

namespace {

Settings watching_worker() {
  Settings s = worker();
  s.watch_head = true;
  s.drain = true;
  s.term_grace = 30s;
  return s;
}

// A worker whose Ray runs, watched.
Lifecycle worker_running(Settings s = watching_worker()) {
  Lifecycle l(s);
  l.on(Start{});
  REQUIRE(words(l.on(ready(Wait::head))) == W{"spawn:ray", "wait:watch"});
  REQUIRE(l.phase() == Phase::running_ray);
  return l;
}

WaitFinished ended(Wait w, WaitEnd end, std::string reason, std::optional<int> code = std::nullopt) {
  WaitFinished f{w, end, std::move(reason)};
  f.code = code;
  return f;
}

WaitFinished joined(int nodes) {
  WaitFinished f = ready(Wait::join);
  f.nodes = nodes;
  return f;
}

ChildExited command_exit(int code, std::chrono::milliseconds at, int group_left = 0) {
  ChildExited e = exited(Child::command, code, "exited with " + std::to_string(code), group_left, 60s);
  e.at = at;
  return e;
}

const Spawn* spawn_of(const std::vector<Effect>& effects) {
  for (const Effect& e : effects) {
    if (const auto* s = std::get_if<Spawn>(&e)) {
      return s;
    }
  }
  return nullptr;
}

std::string env_of(const Spawn* s, const std::string& name) {
  for (const auto& [k, v] : s ? s->env : EnvAdditions{}) {
    if (k == name) {
      return v;
    }
  }
  return "<unset>";
}

// Ray stopped, nothing left: the last effects of every run.
std::vector<Effect> finish_ray(Lifecycle& l) {
  return ray_gone(l);
}

Settings restarting_head(int restarts, std::chrono::milliseconds window = 1h) {
  Settings s = head();
  s.restarts = restarts;
  s.restart_window = window;
  return s;
}

}  // namespace

// --- the head watch ----------------------------------------------------------------------------

TEST_CASE("worker: a replaced head or this node DEAD ends the pod at once with 69 and the reason",
          "[lifecycle][survive]") {
  for (const char* why : {"the head's GCS at h:6379 is a new cluster (cluster id 1, was 2)",
                          "training-1 (node abc) is DEAD in the head's GCS (UNEXPECTED_TERMINATION: health check)"}) {
    INFO(why);
    Lifecycle l = worker_running();
    CHECK(words(l.on(ended(Wait::watch, WaitEnd::unreachable, why, 69))) == W{"signal:ray:15", "timer:ray"});
    CHECK(l.phase() == Phase::stopping);
    CHECK(l.reason() == why);  // what /readyz says from now on
    const auto last = finish_ray(l);
    CHECK(words(last).back() == "exit:69");
    CHECK(exit_reason(last) == why);
  }
}

TEST_CASE("worker: without the watch, Ray runs as before; a watch that threw leaves Ray running",
          "[lifecycle][survive]") {
  Settings s = worker();
  Lifecycle plain(s);
  plain.on(Start{});
  CHECK(words(plain.on(ready(Wait::head))) == W{"spawn:ray"});

  Lifecycle l = worker_running();
  WaitFinished bug = ended(Wait::watch, WaitEnd::unreachable, "internal error in raylaunch's wait: boom");
  bug.internal_error = true;
  const auto effects = l.on(bug);
  CHECK(words(effects).empty());
  CHECK(logs(effects).find("Ray runs on unwatched") != std::string::npos);
  CHECK(l.phase() == Phase::running_ray);
}

TEST_CASE("worker: Ray exiting ends the watch before the head is looked at", "[lifecycle][survive]") {
  Lifecycle l = worker_running();
  CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"cancel-wait", "wait:diagnose"});
  // The cancelled watch's late answer is not the diagnosis.
  CHECK(words(l.on(ended(Wait::watch, WaitEnd::stopped, ""))).empty());
  CHECK(words(l.on(ended(Wait::diagnose, WaitEnd::ready, "head GCS at h still answers"))) == W{"leftovers?"});
}

// --- the drain ---------------------------------------------------------------------------------

TEST_CASE("worker: SIGTERM drains the node first, then stops Ray; exit 143 names the drain",
          "[lifecycle][survive][signals]") {
  for (int sig : {SIGTERM, SIGINT}) {
    INFO(sig);
    Lifecycle l = worker_running();
    CHECK(words(l.on(SignalReceived{sig})) == W{"cancel-wait", "wait:drain", "timer:term"});
    CHECK(l.phase() == Phase::draining);
    CHECK(l.running(Child::ray));  // Ray keeps running while its node drains
    // The watch's answer to its cancellation does not end the drain.
    CHECK(words(l.on(ended(Wait::watch, WaitEnd::stopped, ""))).empty());
    CHECK(words(l.on(ended(Wait::drain, WaitEnd::ready, "drained until the 30s deadline"))) ==
          W{"untimer:term", "signal:ray:15", "timer:ray"});
    const auto last = finish_ray(l);
    CHECK(words(last).back() == "exit:" + std::to_string(128 + sig));
    CHECK(exit_reason(last) == "stopped by " + std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                                   " while Ray ran; drained until the 30s deadline");
  }
}

TEST_CASE("worker: once its drained node's raylet has exited, ray start gets a short stop grace, then SIGKILL",
          "[lifecycle][survive][signals]") {
  // A `ray start` still in its start-up waits up to 30 s for its drained (DEAD) node before it
  // can handle SIGTERM (Ray 2.60's Node.__init__): the soak caught it past a 20 s stop grace.
  Settings s = watching_worker();
  s.ray_stop_grace = 20s;
  Lifecycle l = worker_running(s);
  l.on(SignalReceived{SIGTERM});
  WaitFinished drained = ended(Wait::drain, WaitEnd::ready, "drained: the node was idle and its raylet exited");
  drained.node_gone = true;
  const auto stopping = l.on(drained);
  CHECK(words(stopping) == W{"untimer:term", "signal:ray:15", "timer:ray"});
  const auto* timer = std::get_if<StartTimer>(&stopping.back());
  REQUIRE(timer != nullptr);
  CHECK(timer->after == 5s);
  const auto fired = l.on(TimerFired{Timer::ray_stop_grace});
  CHECK(words(fired) == W{"kill:ray", "timer:killed"});
  CHECK_THAT(logs(fired), Catch::Contains("its raylet exited") && Catch::Contains("nothing of Ray's runs here"));
  CHECK(exit_reason(finish_ray(l)) == "stopped by SIGTERM while Ray ran; drained: the node was idle and its raylet "
                                      "exited");

  // A node still running work at the deadline keeps the whole stop grace.
  Lifecycle busy = worker_running(s);
  busy.on(SignalReceived{SIGTERM});
  const auto deadline = busy.on(ended(Wait::drain, WaitEnd::ready, "drained until the 30s deadline"));
  const auto* full = std::get_if<StartTimer>(&deadline.back());
  REQUIRE(full != nullptr);
  CHECK(full->after == 20s);
}

TEST_CASE("worker: a second SIGTERM cuts the drain short; Ray is stopped at once", "[lifecycle][survive][signals]") {
  Lifecycle l = worker_running();
  l.on(SignalReceived{SIGTERM});
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"cancel-wait", "untimer:term", "signal:ray:15", "timer:ray"});
  CHECK(words(l.on(ended(Wait::drain, WaitEnd::ready, "drained: too late"))).empty());
  const auto last = finish_ray(l);
  CHECK(exit_reason(last) == "stopped by SIGTERM while Ray ran; the drain was cut short by SIGTERM");
}

TEST_CASE("worker: Ray exiting while its node drains (an idle raylet exits) ends the drain", "[lifecycle][survive]") {
  Lifecycle l = worker_running();
  l.on(SignalReceived{SIGTERM});
  CHECK(words(l.on(exited(Child::ray, 1, "exited with 1"))) == W{"cancel-wait", "untimer:term", "leftovers?"});
  CHECK(words(l.on(Leftovers{0})) == W{"stragglers?"});
  const auto last = l.on(Stragglers{0, ""});
  CHECK(words(last) == W{"exit:143"});
  CHECK(exit_reason(last) == "stopped by SIGTERM while Ray ran; Ray exited while the node drained (ray start exited "
                             "with 1)");
}

TEST_CASE("worker: a drain that overruns its window is ended by the timer", "[lifecycle][survive]") {
  Lifecycle l = worker_running();
  const auto started = l.on(SignalReceived{SIGTERM});
  const auto* timer = std::get_if<StartTimer>(&started.back());
  REQUIRE(timer != nullptr);
  CHECK(timer->after > 30s);  // the drain's own deadline ends it first
  CHECK(words(l.on(TimerFired{Timer::term_grace})) == W{"cancel-wait", "signal:ray:15", "timer:ray"});
  CHECK(exit_reason(finish_ray(l)) == "stopped by SIGTERM while Ray ran; the drain did not end within its window");
}

TEST_CASE("worker without drain, and the head: SIGTERM stops Ray at once, as before", "[lifecycle][survive]") {
  Settings s = watching_worker();
  s.drain = false;
  Lifecycle l = worker_running(s);
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"cancel-wait", "signal:ray:15", "timer:ray"});
}

// --- in-place restarts -------------------------------------------------------------------------

TEST_CASE("retryable exit statuses: failures, crashes and kills, not raylaunch's codes, a command that cannot run "
          "or a request to stop",
          "[survive]") {
  for (int code : {1, 2, 3, 42, 101, 134, 137, 139, 255}) {
    INFO(code);
    CHECK(retryable_exit(code));
  }
  for (int code : {0, 64, 69, 70, 71, 74, 75, 77, 78, 126, 127, 130, 143}) {
    INFO(code);
    CHECK_FALSE(retryable_exit(code));
  }
}

TEST_CASE("the restart budget: at most N within any window, a sliding one", "[survive]") {
  RestartBudget off(0, 1h);
  CHECK_FALSE(off.enabled());
  CHECK_FALSE(off.take(0ms));

  RestartBudget b(2, 10min);
  CHECK(b.take(1min));
  CHECK(b.take(2min));
  CHECK_FALSE(b.take(3min));   // two within the last 10 minutes
  CHECK_FALSE(b.take(10min));  // the first one is 9 minutes old
  CHECK(b.take(11min));        // the first one has left the window
  CHECK_FALSE(b.take(11min + 30s));
  CHECK(b.take(12min));
  CHECK(b.used() == 4);
  CHECK(b.describe() == "2 within 10m");
}

TEST_CASE("head: a retryable failure reruns the command after the barrier; the command knows its restart",
          "[lifecycle][survive]") {
  Lifecycle l(restarting_head(2));
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  const auto first = l.on(joined(4));
  CHECK(env_of(spawn_of(first), "RAYLAUNCH_RESTART_COUNT") == "0");
  CHECK(env_of(spawn_of(first), "RAYLAUNCH_NODES_PRESENT") == "4");

  const auto failed = l.on(command_exit(1, 5min));
  CHECK(words(failed) == W{"wait:join"});  // Ray stays up: no ray start, no back-off
  CHECK(logs(failed).find("running it again in place (restart 1, at most 2 within 1h)") != std::string::npos);
  CHECK(l.phase() == Phase::joining);
  CHECK(l.restarts() == 0);  // counted once it runs again
  const auto again = l.on(joined(4));
  CHECK(words(again) == W{"spawn:command"});
  CHECK(l.restarts() == 1);
  CHECK(env_of(spawn_of(again), "RAYLAUNCH_RESTART_COUNT") == "1");

  l.on(command_exit(137, 10min));  // OOM-killed: retryable
  l.on(joined(3));
  CHECK(l.restarts() == 2);
  // The budget is spent: the third failure is the run's, and the message says why.
  CHECK(words(l.on(command_exit(1, 15min))) == W{"signal:ray:15", "timer:ray"});
  const auto last = finish_ray(l);
  CHECK(words(last).back() == "exit:1");
  CHECK(exit_reason(last) == "command exited with 1 after 1m00s (not run again: the restart budget, 2 within 1h, is "
                             "spent); the command ran again in place 2 times (RAYLAUNCH_RESTARTS)");
}

TEST_CASE("head on a GCS store: the count goes on from earlier containers, each start recorded first",
          "[lifecycle][survive]") {
  // A head container the kubelet restarted on the same store: its command ran twice before.
  Settings s = restarting_head(2);
  s.earlier_runs = 2;
  s.record_runs = true;
  Lifecycle l(s);
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  const auto first = l.on(joined(4));
  CHECK(words(first) == W{"record:3", "spawn:command"});  // recorded before it starts
  CHECK(env_of(spawn_of(first), "RAYLAUNCH_RESTART_COUNT") == "2");
  l.on(command_exit(1, 5min));
  const auto again = l.on(joined(4));
  CHECK(words(again) == W{"record:4", "spawn:command"});
  CHECK(env_of(spawn_of(again), "RAYLAUNCH_RESTART_COUNT") == "3");
  CHECK(l.restarts() == 1);  // the reruns in place of this container, as the termination message counts them
  // Without a store nothing is recorded (restarting_head: record_runs off).
  Lifecycle plain(restarting_head(2));
  plain.on(Start{});
  plain.on(ready(Wait::local_gcs));
  CHECK(words(plain.on(joined(4))) == W{"spawn:command"});
}

TEST_CASE("head: success, a non-retryable status and SIGTERM are never rerun", "[lifecycle][survive]") {
  {
    Lifecycle l = head_running_command(restarting_head(3));
    CHECK(words(l.on(command_exit(0, 1min))) == W{"signal:ray:15", "timer:ray"});
    CHECK(exit_reason(finish_ray(l)) == "command exited with 0 after 1m00s");
  }
  {
    Lifecycle l = head_running_command(restarting_head(3));
    l.on(command_exit(78, 1min));
    CHECK(exit_reason(finish_ray(l)) == "command exited with 78 after 1m00s (not run again: exit status 78 is not "
                                        "retryable)");
  }
  {
    Lifecycle l = head_running_command(restarting_head(3));
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command-group:15", "timer:term"});
    CHECK(words(l.on(command_exit(143, 1min))) == W{"untimer:term", "signal:ray:15", "timer:ray"});
    CHECK(words(finish_ray(l)).back() == "exit:143");
  }
}

TEST_CASE("head: a rerun that never started is not counted, and the failure it was for is kept",
          "[lifecycle][survive][signals]") {
  // Issue 26 item 12: "ran again in place N times" counted the budget's takes, and the original
  // failure was lost when the rerun's barrier failed.
  SECTION("SIGTERM in the rerun's barrier") {
    Lifecycle l = head_running_command(restarting_head(3));
    l.on(command_exit(1, 1min));
    CHECK(l.restarts() == 0);
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"cancel-wait", "signal:ray:15", "timer:ray"});
    CHECK(exit_reason(finish_ray(l)) == "stopped by SIGTERM during the join barrier; the command had exited with 1 "
                                        "after 1m00s and was to run again in place (restart 1, RAYLAUNCH_RESTARTS)");
  }
  SECTION("the rerun's barrier times out, after one rerun that did run") {
    Lifecycle l = head_running_command(restarting_head(3));
    l.on(command_exit(1, 1min));
    l.on(joined(4));
    CHECK(l.restarts() == 1);
    l.on(command_exit(3, 5min));
    l.on(ended(Wait::join, WaitEnd::not_ready, "join timed out after 5m: 3/4 nodes alive; missing: training-3", 75));
    const auto last = finish_ray(l);
    CHECK(words(last).back() == "exit:75");
    CHECK(exit_reason(last) == "join timed out after 5m: 3/4 nodes alive; missing: training-3; the command had exited "
                               "with 3 after 1m00s and was to run again in place (restart 2, RAYLAUNCH_RESTARTS); it "
                               "ran again in place 1 time before");
  }
}

TEST_CASE("head: the command's exit status is its last run's; a rerun has none until it exits", "[lifecycle][survive]") {
  // Issue 26 item 12: raylaunch_command_exit_status kept the previous run's code during a rerun.
  Lifecycle l = head_running_command(restarting_head(3));
  CHECK_FALSE(l.command_exit_code());
  l.on(command_exit(1, 1min));
  CHECK(l.command_exit_code() == 1);
  l.on(joined(4));
  CHECK_FALSE(l.command_exit_code());  // the rerun runs
  l.on(command_exit(0, 2min));
  CHECK(l.command_exit_code() == 0);
}

TEST_CASE("head: what a failed command left in its group is stopped before the rerun; SIGTERM then ends the run",
          "[lifecycle][survive][signals]") {
  {
    Lifecycle l = head_running_command(restarting_head(1));
    CHECK(words(l.on(command_exit(1, 1min, 2))) == W{"signal:command-group:15", "timer:term", "watch:command"});
    CHECK(l.phase() == Phase::restarting);
    CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "wait:join"});
  }
  {
    Lifecycle l = head_running_command(restarting_head(1));
    l.on(command_exit(1, 1min, 2));
    CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command-group:15"});
    CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "signal:ray:15", "timer:ray"});
    const auto last = finish_ray(l);
    CHECK(words(last).back() == "exit:143");
    CHECK(exit_reason(last).starts_with("stopped by SIGTERM before the command was run again"));
  }
}

TEST_CASE("head: a quorum's count reaches the command", "[lifecycle][survive]") {
  Lifecycle l(head());
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  CHECK(env_of(spawn_of(l.on(joined(3))), "RAYLAUNCH_NODES_PRESENT") == "3");
}

TEST_CASE("head: nothing of a failed run reaches its rerun: after a SIGKILLed group, a rerun's trainer keeps its grace",
          "[lifecycle][survive][signals]") {
  // Issue 26 item 1: the first run's group outlived its grace and was SIGKILLed; the rerun is
  // `bash -c` over a trainer that saves a checkpoint on SIGTERM. bash dies at once, the trainer
  // must keep the rest of the grace, and Ray is stopped only after it.
  Lifecycle l = head_running_command(restarting_head(2));
  CHECK(words(l.on(command_exit(1, 1min, 1))) == W{"signal:command-group:15", "timer:term", "watch:command"});
  CHECK(words(l.on(TimerFired{Timer::term_grace})).front() == "kill:command");
  l.on(GroupGone{Child::command});
  REQUIRE(l.phase() == Phase::joining);
  CHECK(words(l.on(joined(4))) == W{"spawn:command"});

  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command-group:15", "timer:term"});
  const auto wrapper = l.on(exited(Child::command, 143, "killed by SIGTERM", 1));
  CHECK(words(wrapper) == W{"watch:command"});  // the trainer still saves: Ray keeps running
  CHECK_THAT(logs(wrapper), Catch::Contains("with the rest of the term grace"));
  CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "signal:ray:15", "timer:ray"});
  CHECK(words(finish_ray(l)).back() == "exit:143");
}

TEST_CASE("head: Ray dying while a failed command's group is stopped ends the run, 69, with the cause",
          "[lifecycle][survive]") {
  // Issue 26 item 2: the rerun's barrier would poll a dead GCS for the whole join timeout.
  Lifecycle l = head_running_command(restarting_head(2));
  l.on(command_exit(1, 1min, 2));
  REQUIRE(l.phase() == Phase::restarting);
  ChildExited ray = exited(Child::ray, 1, "exited with 1");
  ray.detail = "Some Ray subprocesses exited unexpectedly";
  CHECK(words(l.on(ray)).empty());  // the failed command's group keeps the rest of its grace
  CHECK(l.phase() == Phase::stopping);
  CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "leftovers?"});
  CHECK(words(l.on(Leftovers{0})) == W{"stragglers?"});
  const auto last = l.on(Stragglers{0, ""});
  CHECK(words(last) == W{"exit:69"});
  CHECK_THAT(exit_reason(last), Catch::StartsWith("Ray died while the failed command's group was stopped (ray start "
                                                  "exited with 1): Some Ray subprocesses exited unexpectedly"));
}

TEST_CASE("a wait that could not start (no thread: a pids limit) fails as a wait; the run goes on", "[lifecycle][survive]") {
  // Issue 26 item 7: the exception once turned a graceful stop into exit 70 and SIGKILL of all.
  auto no_thread = [](Wait w) {
    WaitFinished f = ended(w, WaitEnd::unreachable, "could not start a thread for it: Resource temporarily unavailable",
                           71);
    f.not_started = true;
    return f;
  };
  {
    Lifecycle l = worker_running();
    const auto effects = l.on(no_thread(Wait::watch));
    CHECK(words(effects).empty());
    CHECK_THAT(logs(effects), Catch::Contains("Ray runs on unwatched"));
    CHECK(l.phase() == Phase::running_ray);
  }
  {
    Lifecycle l = worker_running();
    l.on(SignalReceived{SIGTERM});
    CHECK(words(l.on(no_thread(Wait::drain))) == W{"untimer:term", "signal:ray:15", "timer:ray"});
    const auto last = finish_ray(l);
    CHECK(words(last).back() == "exit:143");
    CHECK(exit_reason(last) == "stopped by SIGTERM while Ray ran; not drained: could not start a thread for it: "
                               "Resource temporarily unavailable");
  }
  {
    Lifecycle l(head());
    l.on(Start{});
    l.on(ready(Wait::local_gcs));
    CHECK(words(l.on(no_thread(Wait::join))) == W{"signal:ray:15", "timer:ray"});
    CHECK(words(finish_ray(l)).back() == "exit:71");
  }
}

TEST_CASE("head: the rerun starts once the failed command's SIGKILLed group is gone, or after a bound",
          "[lifecycle][survive]") {
  // Issue 26 item 8: the group may still hold GPU memory milliseconds after SIGKILL.
  Lifecycle l = head_running_command(restarting_head(2));
  l.on(command_exit(1, 1min, 1));
  const auto killed = l.on(TimerFired{Timer::term_grace});
  CHECK(words(killed) == W{"kill:command", "timer:killed"});
  const auto* bound = std::get_if<StartTimer>(&killed.back());
  REQUIRE(bound != nullptr);
  CHECK(bound->after == 10s);
  CHECK(l.phase() == Phase::restarting);
  SECTION("the group goes") { CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:killed", "wait:join"}); }
  SECTION("it does not (a process in D state): said, and the rerun goes on") {
    const auto late = l.on(TimerFired{Timer::killed});
    CHECK(words(late) == W{"wait:join"});
    CHECK_THAT(logs(late), Catch::Contains("still there 10s after SIGKILL") &&
                               Catch::Contains("running the command again without waiting for it"));
    CHECK(words(l.on(GroupGone{Child::command})).empty());  // too late to matter
  }
}

TEST_CASE("after SIGKILL every wait is bounded: a child that never exits (D state) does not hold the run",
          "[lifecycle][signals]") {
  // Issue 26 item 9.
  SECTION("the command: Ray is stopped without it") {
    Lifecycle l = head_running_command();
    l.on(SignalReceived{SIGTERM});
    CHECK(words(l.on(TimerFired{Timer::term_grace})) == W{"kill:command", "timer:killed"});
    const auto late = l.on(TimerFired{Timer::killed});
    CHECK(words(late) == W{"signal:ray:15", "timer:ray"});
    CHECK_THAT(logs(late), Catch::Contains("the command did not exit within 10s of SIGKILL"));
    const auto last = ray_gone(l);
    CHECK(words(last).back() == "exit:143");
    CHECK(exit_reason(last) == "stopped by SIGTERM while the command ran; the command did not exit within 10s of "
                               "SIGKILL (uninterruptible sleep, D state?)");
  }
  SECTION("the command exits after all: nothing more to wait for") {
    Lifecycle l = head_running_command();
    l.on(SignalReceived{SIGTERM});
    l.on(TimerFired{Timer::term_grace});
    CHECK(words(l.on(exited(Child::command, 137, "killed by SIGKILL"))) ==
          W{"untimer:killed", "untimer:term", "signal:ray:15", "timer:ray"});
  }
  SECTION("ray start: the run ends without it") {
    Settings s = worker();
    Lifecycle l(s);
    l.on(Start{});
    l.on(ready(Wait::head));
    l.on(SignalReceived{SIGTERM});
    CHECK(words(l.on(TimerFired{Timer::ray_stop_grace})) == W{"kill:ray", "timer:killed"});
    const auto late = l.on(TimerFired{Timer::killed});
    CHECK(words(late) == W{"stragglers?"});  // not `ray stop`: SIGKILL already went to Ray's whole group
    const auto last = l.on(Stragglers{0, ""});
    CHECK(words(last) == W{"exit:143"});
    CHECK(exit_reason(last) == "stopped by SIGTERM while Ray ran; ray start did not exit within 10s of SIGKILL "
                               "(uninterruptible sleep, D state?)");
  }
  SECTION("ray stop, the fallback") {
    Lifecycle l = head_running_command();
    l.on(exited(Child::command, 0, "exited with 0"));
    l.on(exited(Child::ray, 1, "exited with 1"));
    l.on(Leftovers{2});
    CHECK(words(l.on(TimerFired{Timer::ray_stop_grace})) == W{"kill:ray_stop", "timer:killed"});
    CHECK(words(l.on(TimerFired{Timer::killed})) == W{"stragglers?"});
    CHECK(words(l.on(Stragglers{0, ""})) == W{"exit:0"});
  }
}

TEST_CASE("ray start that could not be started for want of its output pipe exits 71, as documented",
          "[lifecycle]") {
  // Issue 26 item 12: 71 was documented for a failed output pipe, and 69 produced.
  ChildExited no_pipe{Child::ray, 71, "could not be started", std::nullopt,
                      "pipe for its output: Too many open files", 0};
  {
    Lifecycle l(head());
    l.on(Start{});
    CHECK(words(l.on(no_pipe)) == W{"cancel-wait", "leftovers?"});
    l.on(Leftovers{0});
    const auto last = l.on(Stragglers{0, ""});
    CHECK(words(last) == W{"exit:71"});
    CHECK(exit_reason(last) == "ray start could not be started while Ray was starting: pipe for its output: Too many "
                               "open files");
  }
  {
    Lifecycle l = worker_running();
    CHECK(words(l.on(no_pipe)) == W{"cancel-wait", "leftovers?"});  // the head is not to blame: not looked at
    l.on(Leftovers{0});
    const auto last = l.on(Stragglers{0, ""});
    CHECK(words(last) == W{"exit:71"});
    CHECK(exit_reason(last) == "ray start could not be started: pipe for its output: Too many open files");
  }
}
