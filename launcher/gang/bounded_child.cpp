#include "gang/bounded_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/fd.hpp"

extern char** environ;

namespace launcher::gang {

namespace {

constexpr std::size_t k_max_output = 64 * 1024;
// How often a wait looks at `stop` (poll has no stop token).
constexpr int k_poll_slice_ms = 100;

int pidfd_open(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

void kill_child(int pidfd, pid_t pid) {
  // The group first (fi_pingpong forks nothing, but a wrapper script would), then the process
  // itself through its pidfd: never a reused pid.
  if (::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0) {
    ::kill(-pid, SIGKILL);
  }
}

// The spawn attributes of a clean start: empty mask, every signal at its default, a new group.
struct SpawnAttributes {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  explicit SpawnAttributes(int out_fd) {
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // glibc 2.34
  }
  ~SpawnAttributes() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
};

void read_some(int fd, std::string& into, bool& eof) {
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    const std::size_t room = k_max_output - std::min(k_max_output, into.size());
    into.append(buf, std::min(static_cast<std::size_t>(n), room));
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    eof = true;
  }
}

std::optional<int> reap(int pidfd) {
  siginfo_t info{};
  if (::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd), &info, WEXITED | WNOHANG) != 0 ||
      info.si_pid == 0) {
    return std::nullopt;  // the supervisor's waitpid(-1) reaped it first
  }
  return info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
}

}  // namespace

ChildResult run_bounded(const std::string& exe, const std::vector<std::string>& argv, std::chrono::milliseconds limit,
                        std::stop_token stop) {
  ChildResult result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.end = ChildEnd::not_started;
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  util::Fd read_end(pipe_fds[0]);
  util::Fd write_end(pipe_fds[1]);
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid = -1;
  int err = 0;
  {
    SpawnAttributes spawn(write_end.get());
    err = ::posix_spawn(&pid, exe.c_str(), &spawn.actions, &spawn.attr, args.data(), environ);
  }
  write_end.reset();
  if (err != 0) {
    result.end = ChildEnd::not_started;
    result.output = exe + ": " + std::strerror(err);
    return result;
  }
  util::Fd pidfd(pidfd_open(pid));
  ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool eof = false;
  bool exited = !pidfd.valid();  // ESRCH: it has already exited and been reaped
  while (!eof || !exited) {
    if (stop.stop_requested() || std::chrono::steady_clock::now() >= deadline) {
      result.end = stop.stop_requested() ? ChildEnd::stopped : ChildEnd::timed_out;
      if (pidfd.valid() && !exited) {
        kill_child(pidfd.get(), pid);
      }
      break;
    }
    pollfd fds[2] = {{eof ? -1 : read_end.get(), POLLIN, 0}, {exited ? -1 : pidfd.get(), POLLIN, 0}};
    if (::poll(fds, 2, k_poll_slice_ms) < 0 && errno != EINTR) {
      break;
    }
    if (fds[0].revents != 0) {
      read_some(read_end.get(), result.output, eof);
    }
    if (fds[1].revents != 0) {
      exited = true;
    }
  }
  if (pidfd.valid()) {
    // Exited or killed: its status, unless the supervisor reaped it first. A killed child is
    // gone within moments; its pidfd turns readable then.
    pollfd gone{pidfd.get(), POLLIN, 0};
    ::poll(&gone, 1, 200);
    result.status = reap(pidfd.get());
  }
  return result;
}

}  // namespace launcher::gang
