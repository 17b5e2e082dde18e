#include "supervisor/exec_in_place.hpp"

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csetjmp>
#include <csignal>

#include "supervisor/child_process.hpp"
#include "supervisor/descriptors.hpp"
#include "util/signals.hpp"

namespace launcher::supervisor {

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
