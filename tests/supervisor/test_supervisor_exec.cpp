// Executing the command, both ways: spawned through Boost.Process (spawn_child) and in place
// (exec_in_place, --exec). Failures come back with the shell's code and the reason; a failed or
// interrupted exec in place leaves the calling process exactly as it was. Every exec in place
// runs in a forked child of the test, which reports back through its exit status.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstring>

#include "fixtures.hpp"
#include "supervisor/spawn.hpp"

using namespace launcher::supervisor;

namespace {

std::string script(const fixtures::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  ::chmod(path.c_str(), 0755);
  return path;
}

SpawnError spawn_error(const std::string& exe) {
  const auto r = spawn_child({exe, {exe}, false, {}});
  REQUIRE(!r);
  return r.error();
}

// Runs `body` in a forked child; its return value is the child's exit code.
template <typename F>
int in_child(F body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool same_mask(const sigset_t& a, const sigset_t& b) {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sigismember(&a, sig) != sigismember(&b, sig)) {
      return false;
    }
  }
  return true;
}

void on_usr2(int) {}

// Blocks every signal it can, as raylaunch does, and returns the mask the kernel took (never
// SIGKILL or SIGSTOP).
sigset_t block_all() {
  sigset_t blocked;
  sigfillset(&blocked);
  pthread_sigmask(SIG_SETMASK, &blocked, nullptr);
  pthread_sigmask(SIG_SETMASK, nullptr, &blocked);
  return blocked;
}

}  // namespace

TEST_CASE("spawn: Boost.Process reports every execve failure, with the reason (its error pipe survives)",
          "[supervisor][exec]") {
  fixtures::TempDir dir;
  SECTION("a script without #!: ENOEXEC, 126") {
    const SpawnError e = spawn_error(script(dir, "plain", "echo hi\n"));
    CHECK(e.code == 126);
    CHECK_THAT(e.message, Catch::Contains("not an executable format (a script without a #! line?"));
  }
  SECTION("a file open for writing: ETXTBSY, 126") {
    const std::string path = script(dir, "busy", "#!/bin/sh\necho hi\n");
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    const SpawnError e = spawn_error(path);
    ::close(fd);
    CHECK(e.code == 126);
    CHECK_THAT(e.message, Catch::Contains("text file busy"));
  }
  SECTION("a #! interpreter that is missing, or has a CRLF line end: 126, named") {
    const SpawnError e = spawn_error(script(dir, "crlf", "#!/bin/sh\r\necho hi\r\n"));
    CHECK(e.code == 126);
    CHECK_THAT(e.message, Catch::Contains("its #! interpreter \"/bin/sh\\r\" has a CRLF line end"));
    CHECK(check_interpreter(dir.path() + "/crlf").has_value());
    CHECK_FALSE(check_interpreter(script(dir, "fine", "#!/bin/sh\necho hi\n")).has_value());
  }
  SECTION("not executable: EACCES, 126") {
    const std::string path = script(dir, "noexec", "#!/bin/sh\n");
    ::chmod(path.c_str(), 0644);
    CHECK(spawn_error(path).code == 126);
  }
  SECTION("gone: ENOENT, 127") { CHECK(spawn_error(dir.path() + "/missing").code == 127); }
}

TEST_CASE("spawn: the child starts with only 0, 1, 2 and without the variables it must not get",
          "[supervisor][exec]") {
  fixtures::TempDir dir;
  ::setenv("RAYLAUNCH_TEST_DROPPED", "secret", 1);
  const int kept = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: must still not leak
  const std::string out = dir.path() + "/out";
  const auto r = spawn_child({"/bin/sh",
                              {"sh", "-c", "ls /proc/self/fd > \"$0\"; echo \"[${RAYLAUNCH_TEST_DROPPED:-}]\" >> \"$0\"", out},
                              false,
                              {"RAYLAUNCH_TEST_DROPPED"}});
  ::close(kept);
  ::unsetenv("RAYLAUNCH_TEST_DROPPED");
  REQUIRE(r);
  int status = 0;
  ::waitpid(r.value().pid, &status, 0);
  // ls's own directory descriptor shows too: 0 1 2 and one more.
  const std::string text = fixtures::slurp(out);
  CHECK(text == "0\n1\n2\n3\n[]\n");
}

TEST_CASE("exec in place: a failed execve leaves the process as it was, and says why", "[supervisor][exec]") {
  fixtures::TempDir dir;
  const std::string plain = script(dir, "plain", "echo hi\n");
  const int code = in_child([&] {
    const sigset_t blocked = block_all();
    struct sigaction handler {};
    handler.sa_handler = on_usr2;
    sigaction(SIGUSR2, &handler, nullptr);
    int fds[2];
    if (::pipe(fds) != 0) {
      return 10;
    }
    const ExecAttempt a = exec_in_place(plain, {plain}, {});
    if (a.interrupted_by != 0 || a.error.code != 126 ||
        std::strstr(a.error.message.c_str(), "not an executable format") == nullptr) {
      return 11;
    }
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, nullptr, &now);
    if (!same_mask(now, blocked)) {
      return 12;  // the mask was not put back
    }
    struct sigaction after {};
    sigaction(SIGUSR2, nullptr, &after);
    if (after.sa_handler != on_usr2) {
      return 13;  // a disposition was not put back
    }
    if (::write(fds[1], "x", 1) != 1) {
      return 14;  // a descriptor was closed: an event loop would spin
    }
    return 0;
  });
  CHECK(code == 0);
}

TEST_CASE("exec in place: a signal pending as the exec starts comes back, and nothing was executed",
          "[supervisor][exec]") {
  fixtures::TempDir dir;
  const std::string marker = dir.path() + "/ran";
  const int code = in_child([&] {
    const sigset_t blocked = block_all();
    ::kill(::getpid(), SIGTERM);  // pending: it would be lost as the mask is emptied
    const ExecAttempt a = exec_in_place("/bin/sh", {"sh", "-c", "touch \"$0\"", marker}, {});
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, nullptr, &now);
    return a.interrupted_by == SIGTERM && same_mask(now, blocked) ? 0 : 20;
  });
  CHECK(code == 0);
  CHECK(::access(marker.c_str(), F_OK) != 0);
}

TEST_CASE("exec in place: the command starts with an empty mask, default dispositions, only 0, 1, 2",
          "[supervisor][exec]") {
  fixtures::TempDir dir;
  const std::string out = dir.path() + "/status";
  in_child([&] {
    block_all();
    struct sigaction handler {};
    handler.sa_handler = on_usr2;
    sigaction(SIGUSR2, &handler, nullptr);
    [[maybe_unused]] const int extra = ::open("/dev/null", O_RDONLY);
    exec_in_place("/bin/sh", {"sh", "-c", "grep -E '^Sig(Blk|Ign|Cgt)' /proc/self/status > \"$0\"; ls /proc/self/fd >> \"$0\"", out},
                  {});
    return 30;
  });
  const std::string text = fixtures::slurp(out);
  CHECK_THAT(text, Catch::Contains("SigBlk:\t0000000000000000"));
  CHECK_THAT(text, Catch::Contains("SigIgn:\t0000000000000000"));
  CHECK_THAT(text, Catch::EndsWith("0\n1\n2\n3\n"));  // 3: ls's own directory
}
