#include "supervisor/spawn.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "util/signals.hpp"

namespace launcher::supervisor {

namespace {

constexpr unsigned k_close_range_cloexec = 1U << 2;  // CLOSE_RANGE_CLOEXEC, <linux/close_range.h>

}  // namespace

std::vector<int> open_descriptors(int from) {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) {
    return fds;
  }
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && fd >= from && fd != own) {
      fds.push_back(static_cast<int>(fd));
    }
  }
  ::closedir(dir);
  return fds;
}

void mark_close_on_exec(int from, const std::vector<int>& listed) {
  if (::syscall(SYS_close_range, static_cast<unsigned>(from), ~0U, k_close_range_cloexec) == 0) {
    return;
  }
  for (const int fd : listed) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) {
      ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
  }
}

}  // namespace launcher::supervisor

extern char** environ;  // NOLINT: POSIX

namespace launcher::supervisor {

namespace {

// Between fork and execve only async-signal-safe calls: sigaction, setpgid, dup2, fcntl,
// close_range, sigprocmask. The mask is emptied last, when every disposition is the default.
void clean_start(int output_fd, const std::vector<int>& descriptors) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    sigaction(sig, &dfl, nullptr);  // fails harmlessly for SIGKILL, SIGSTOP and glibc's own
  }
  setpgid(0, 0);
  if (output_fd >= 0) {
    dup2(output_fd, STDOUT_FILENO);  // dup2 clears close-on-exec on the copies
    dup2(output_fd, STDERR_FILENO);
  }
  mark_close_on_exec(3, descriptors);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace

ChildEnvironment::ChildEnvironment(const std::vector<std::string>& drop,
                                   const std::vector<std::pair<std::string, std::string>>& set) {
  auto is_set = [&set](const std::string& name) {
    return std::any_of(set.begin(), set.end(), [&name](const auto& kv) { return kv.first == name; });
  };
  for (char** var = environ; var != nullptr && *var != nullptr; ++var) {
    const std::string entry(*var);
    const std::string name = entry.substr(0, entry.find('='));
    if (std::find(drop.begin(), drop.end(), name) == drop.end() && !is_set(name)) {
      m_vars.push_back(entry);
    }
  }
  for (const auto& [name, value] : set) {
    m_vars.push_back(name + "=" + value);
  }
  for (std::string& var : m_vars) {
    m_pointers.push_back(var.data());
  }
  m_pointers.push_back(nullptr);
}

util::Result<SpawnedChild, SpawnError> spawn_child(const SpawnRequest& request) {
  using R = util::Result<SpawnedChild, SpawnError>;
  namespace bp = boost::process;
  int pipe_fds[2] = {-1, -1};
  if (request.capture_output && pipe2(pipe_fds, O_CLOEXEC) != 0) {
    // Not the program's fault (126) but the system's: out of descriptors, most likely.
    return R::failure({exit_code::os_error, std::string("pipe for its output: ") + std::strerror(errno)});
  }
  util::Fd read_end(pipe_fds[0]);
  util::Fd write_end(pipe_fds[1]);
  const int child_out = write_end.get();
  std::vector<std::string> args(request.argv.begin() + (request.argv.empty() ? 0 : 1), request.argv.end());
  ChildEnvironment environment(request.drop_env, request.set_env);
  const std::vector<int> descriptors = open_descriptors(3);
  try {
    bp::child child(
        bp::exe = request.exe, bp::args = args,
        bp::extend::on_setup = [&environment](auto& executor) { executor.env = environment.envp(); },
        bp::extend::on_exec_setup = [child_out, &descriptors](auto& /*executor*/) { clean_start(child_out, descriptors); });
    SpawnedChild spawned;
    spawned.pid = child.id();
    child.detach();
    spawned.output = std::move(read_end);
    return spawned;
  } catch (const bp::process_error& e) {
    return R::failure(describe_exec_error(e.code().value(), request.exe));
  }
}

namespace {

sigjmp_buf g_window;
volatile sig_atomic_t g_in_window = 0;
volatile sig_atomic_t g_signal = 0;

// A signal in the window between the unblocking and execve: back out, with the signal.
void leave_window(int signo) {
  if (g_in_window != 0) {
    g_in_window = 0;
    g_signal = signo;
    siglongjmp(g_window, 1);
  }
}

void consume(int /*signo*/) {}

// Every blockable signal's disposition, saved to be put back when the exec does not happen.
class Dispositions {
 public:
  void install() {
    sigset_t all;
    sigfillset(&all);
    for (int sig = 1; sig < NSIG; ++sig) {
      m_saved[sig].valid = sigismember(&util::blocked_signals(), sig) == 1 && sigaction(sig, nullptr, &m_saved[sig].action) == 0;
      if (!m_saved[sig].valid) {
        continue;
      }
      struct sigaction window {};
      window.sa_handler = sig == SIGCHLD || sig == SIGPIPE ? consume : leave_window;
      window.sa_mask = all;  // no handler interrupts another
      sigaction(sig, &window, nullptr);
    }
  }
  void restore() {
    for (int sig = 1; sig < NSIG; ++sig) {
      if (m_saved[sig].valid) {
        sigaction(sig, &m_saved[sig].action, nullptr);
      }
    }
  }

 private:
  struct Saved {
    bool valid = false;
    struct sigaction action {};
  };
  std::array<Saved, NSIG> m_saved{};
};

}  // namespace

ExecAttempt exec_in_place(const std::string& exe, const std::vector<std::string>& argv,
                          const std::vector<std::string>& drop_env,
                          const std::vector<std::pair<std::string, std::string>>& set_env) {
  std::vector<char*> cargv;
  for (const std::string& a : argv) {
    cargv.push_back(const_cast<char*>(a.c_str()));
  }
  cargv.push_back(nullptr);
  ChildEnvironment environment(drop_env, set_env);
  mark_close_on_exec(3, open_descriptors(3));

  sigset_t saved_mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &saved_mask);
  sigset_t none;
  sigemptyset(&none);
  static Dispositions dispositions;  // static: large, and this thread is the only caller
  dispositions.install();
  ExecAttempt attempt;
  if (sigsetjmp(g_window, 1) == 0) {
    g_signal = 0;
    g_in_window = 1;
    pthread_sigmask(SIG_SETMASK, &none, nullptr);  // a pending signal is handled right here
    ::execve(exe.c_str(), cargv.data(), environment.envp());
    const int err = errno;
    pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
    g_in_window = 0;
    attempt.error = describe_exec_error(err, exe);
  } else {
    attempt.interrupted_by = g_signal;  // siglongjmp put the saved mask back
  }
  dispositions.restore();
  return attempt;
}

}  // namespace launcher::supervisor
