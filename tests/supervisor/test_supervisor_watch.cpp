// The Lifecycle and the watches of the command's run (issue 27): they run only while the command
// runs, and a stuck collective stops the command with 76, which the in-place rerun picks up.
#include "lifecycle_driver.hpp"

using namespace lifecycle_test;

namespace {

Settings watched_head(int restarts = 0) {
  Settings s = head();
  s.watch_command = true;
  s.restarts = restarts;
  s.term_grace = 30s;
  return s;
}

const StopCommand k_stuck{"NCCL communicator 7f3a (4 ranks) made no progress across 10 RAS polls", 76};

ChildExited command_exit(int code, const std::string& how, int group_left = 0) {
  ChildExited e = exited(Child::command, code, how, group_left, 10min);
  e.at = 10min;
  return e;
}

}  // namespace

TEST_CASE("watches: they start with each run of the command and stop when it exits", "[lifecycle][watch]") {
  Lifecycle l(watched_head());
  l.on(Start{});
  l.on(ready(Wait::local_gcs));
  CHECK(words(l.on(ready(Wait::join))) == W{"spawn:command", "watches:start"});
  CHECK(words(l.on(command_exit(0, "exited with 0"))) == W{"watches:stop", "signal:ray:15", "timer:ray"});
}

TEST_CASE("watches: none without the setting, and none with --exec (raylaunch is gone)", "[lifecycle][watch]") {
  Lifecycle plain = head_running_command();
  CHECK(words(plain.on(command_exit(0, "exited with 0"))) == W{"signal:ray:15", "timer:ray"});
  Settings s = watched_head();
  s.exec = true;
  Lifecycle l(s);
  l.on(Start{});
  l.on(exited(Child::ray, 0, "exited with 0"));  // ray start (no --block) returned
  l.on(ready(Wait::local_gcs));
  CHECK(words(l.on(ready(Wait::join))) == W{"exec"});
}

TEST_CASE("a stuck collective: SIGTERM to the command, its grace, then exit 76 with the watch's reason",
          "[lifecycle][watch]") {
  Lifecycle l = head_running_command(watched_head());
  const auto stop = l.on(k_stuck);
  CHECK(words(stop) == W{"signal:command-group:15", "timer:term"});
  CHECK(logs(stop).find("made no progress across 10 RAS polls: stopping the command (SIGTERM, SIGKILL after the "
                        "term grace, 30s); its run ends with 76 (RAYLAUNCH_RESTARTS=0: not run again)") !=
        std::string::npos);
  CHECK(l.phase() == Phase::running_command);
  CHECK(words(l.on(k_stuck)).empty());  // asked twice: stopped once
  CHECK(words(l.on(command_exit(143, "exited with 143"))) ==
        W{"watches:stop", "untimer:term", "signal:ray:15", "timer:ray"});
  CHECK(l.command_exit_code() == 76);
  const auto last = ray_gone(l);
  CHECK(words(last).back() == "exit:76");
  CHECK(exit_reason(last) == "command was stopped (NCCL communicator 7f3a (4 ranks) made no progress across 10 RAS "
                             "polls; it exited with 143) after 10m00s");
}

TEST_CASE("a stuck collective with --restarts: the command runs again in place after the barrier", "[lifecycle][watch]") {
  Lifecycle l = head_running_command(watched_head(2));
  l.on(k_stuck);
  const auto rerun = l.on(command_exit(143, "exited with 143"));
  CHECK(words(rerun) == W{"watches:stop", "untimer:term", "wait:join"});
  CHECK(logs(rerun).find("command was stopped (NCCL communicator 7f3a") != std::string::npos);
  CHECK(logs(rerun).find("running it again in place (restart 1, at most 2 within 1h)") != std::string::npos);
  CHECK(words(l.on(ready(Wait::join))) == W{"spawn:command", "watches:start"});
  CHECK(l.restarts() == 1);
  // The rerun is watched afresh; it succeeds.
  l.on(command_exit(0, "exited with 0"));
  const auto last = ray_gone(l);
  CHECK(words(last).back() == "exit:0");
  CHECK(exit_reason(last) == "command exited with 0 after 10m00s; the command ran again in place 1 time "
                             "(RAYLAUNCH_RESTARTS)");
}

TEST_CASE("a stuck collective: the command's group keeps the rest of the grace; SIGKILL at its end",
          "[lifecycle][watch]") {
  Lifecycle l = head_running_command(watched_head(1));
  l.on(k_stuck);
  // The wrapper died at once; the trainer in its group still saves its checkpoint.
  const auto left = l.on(command_exit(143, "exited with 143", 2));
  CHECK(words(left) == W{"watches:stop", "watch:command"});  // no second SIGTERM, no new timer
  CHECK(words(l.on(GroupGone{Child::command})) == W{"untimer:term", "wait:join"});
}

TEST_CASE("a stuck collective: SIGTERM meanwhile ends the run as SIGTERM does; not running, nothing to stop",
          "[lifecycle][watch]") {
  Lifecycle l = head_running_command(watched_head(3));
  l.on(k_stuck);
  CHECK(words(l.on(SignalReceived{SIGTERM})) == W{"signal:command-group:15", "timer:term"});
  l.on(command_exit(143, "exited with 143"));
  CHECK(words(ray_gone(l)).back() == "exit:143");

  Lifecycle joining(watched_head());
  joining.on(Start{});
  joining.on(ready(Wait::local_gcs));
  CHECK(words(joining.on(k_stuck)).empty());
  CHECK(joining.phase() == Phase::joining);
}

TEST_CASE("exit 76 is retryable, as a crash is", "[lifecycle][watch]") {
  CHECK(retryable_exit(76));
}
