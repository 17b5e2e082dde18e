#include "supervisor/supervisor.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <csignal>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <spdlog/spdlog.h>
#include <thread>

#include "supervisor/leftovers.hpp"
#include "supervisor/output_relay.hpp"
#include "util/exit_codes.hpp"
#include "util/exit_status.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t k_reason_output_lines = 3;

const char* child_name(Child c) {
  switch (c) {
    case Child::ray:
      return "ray start";
    case Child::command:
      return "the command";
    case Child::ray_stop:
      return "ray stop";
  }
  return "?";
}

}  // namespace

void write_termination_message(const std::string& path, const std::string& line) {
  if (path.empty()) {
    return;
  }
  // The kubelet reads at most 4096 bytes per container (kubernetes.io, termination messages).
  std::string text = util::printable(util::redact(line), 4000) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) {
    spdlog::debug("termination message not written to {}: {}", path, std::strerror(errno));
    return;
  }
  [[maybe_unused]] const ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
}

struct Supervisor::Impl {
  Impl(asio::io_context& io_, RunSpec spec_, RunState& state_)
      : io(io_), spec(std::move(spec_)), state(state_), lifecycle(spec.settings), signals(io), term_timer(io),
        ray_timer(io) {}

  asio::io_context& io;
  RunSpec spec;
  RunState& state;
  Lifecycle lifecycle;
  asio::posix::stream_descriptor signals;
  signalfd_siginfo siginfo{};
  asio::steady_timer term_timer;
  asio::steady_timer ray_timer;
  std::map<pid_t, Child> children;
  std::map<Child, pid_t> pids;
  std::map<Child, Clock::time_point> started;
  std::unique_ptr<OutputRelay> ray_output;
  std::jthread wait_thread;
  bool exited = false;
  int exit_code = exit_code::software;

  // --- events in ---------------------------------------------------------------------------
  void dispatch(const Event& event) {
    for (const Effect& effect : lifecycle.on(event)) {
      std::visit([this](const auto& e) { apply(e); }, effect);
    }
    state.phase = lifecycle.phase();
    state.ray_running = lifecycle.running(Child::ray);
    state.reason = lifecycle.reason();
  }

  void read_signals() {
    signals.async_read_some(asio::buffer(&siginfo, sizeof siginfo), [this](const boost::system::error_code& ec,
                                                                           std::size_t n) {
      if (ec || n != sizeof siginfo) {
        if (ec != asio::error::operation_aborted) {
          spdlog::error("reading signals failed: {}", ec.message());
        }
        return;
      }
      const int signo = static_cast<int>(siginfo.ssi_signo);
      if (signo == SIGCHLD) {
        reap();
      } else {
        spdlog::info("received {}", util::signal_name(signo));
        dispatch(SignalReceived{signo});
      }
      if (!exited) {
        read_signals();
      }
    });
  }

  // The one waitpid(-1) loop: every status is collected here, known children's go to the
  // lifecycle, orphans (reparented to PID 1 or to this subreaper) are simply reaped.
  void reap() {
    for (;;) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0) {
        return;
      }
      const auto it = children.find(pid);
      if (it == children.end()) {
        spdlog::debug("reaped orphan process {} ({})", pid, util::describe_status(status));
        continue;
      }
      const Child which = it->second;
      children.erase(it);
      pids.erase(which);
      ChildExited e;
      e.which = which;
      e.code = util::exit_code_of_status(status);
      e.how = util::describe_status(status);
      e.ran = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started[which]);
      if (which == Child::ray) {
        state.ray_exits += 1;
        state.ray_died = lifecycle.phase() != Phase::stopping;
        if (ray_output) {
          ray_output->drain();
          e.detail = ray_output->last_lines(k_reason_output_lines);
        }
      }
      if (which == Child::command) {
        state.command_exit_code = e.code;
      }
      const bool expected = which == Child::command || e.code == 0 || lifecycle.phase() == Phase::stopping;
      spdlog::log(expected ? spdlog::level::info : spdlog::level::warn, "{} (pid {}) {}", child_name(which), pid, e.how);
      dispatch(e);
    }
  }

  void post_event(Event e) {
    asio::post(io, [this, e = std::move(e)] {
      if (!exited) {
        dispatch(e);
      }
    });
  }

  // --- effects out -------------------------------------------------------------------------
  void apply(const StartWait& w) {
    // The previous wait thread, if any, has finished: its result is what got us here.
    wait_thread = std::jthread([this, which = w.which](std::stop_token stop) {
      WaitFinished result = spec.wait(which, stop);
      result.which = which;
      post_event(result);
    });
  }

  void apply(const CancelWait&) { wait_thread.request_stop(); }

  void apply(const Spawn& s) {
    const SpawnRequest& request = s.which == Child::ray ? spec.ray : s.which == Child::command ? spec.command : spec.ray_stop;
    auto child = spawn_child(request);
    if (!child) {
      spdlog::error("{} could not be started: {}", child_name(s.which), child.error().message);
      post_event(ChildExited{s.which, child.error().code, "could not be started", std::chrono::milliseconds(0),
                             child.error().message});
      return;
    }
    const pid_t pid = child.value().pid;
    children[pid] = s.which;
    pids[s.which] = pid;
    last_pgid[s.which] = pid;
    started[s.which] = Clock::now();
    spdlog::info("started {} (pid {})", child_name(s.which), pid);
    if (s.which == Child::ray) {
      state.ray_started = true;
      state.ray_started_at = Clock::now();
      if (child.value().output.valid()) {
        ray_output = std::make_unique<OutputRelay>(io, std::move(child.value().output), "ray: ");
      }
    }
  }

  void apply(const ExecCommand&) {
    spdlog::info("replacing raylaunch with the command (--exec)");
    spdlog::default_logger()->flush();
    const SpawnError err = exec_in_place(spec.command.exe, spec.command.argv);
    // Only a failed execve gets here; the run ends as if the command had exited so.
    post_event(ChildExited{Child::command, err.code, "could not be executed", std::chrono::milliseconds(0), err.message});
  }

  void apply(const SendSignal& s) {
    if (const auto it = pids.find(s.which); it != pids.end()) {
      spdlog::info("sending {} to {} (pid {})", util::signal_name(s.signo), child_name(s.which), it->second);
      ::kill(it->second, s.signo);
    }
  }

  void apply(const KillGroup& k) {
    // Each child leads its own process group (child_process.cpp); the group outlives its
    // leader, so this also reaches what the command left behind after it exited.
    if (const auto it = pids.find(k.which); it != pids.end()) {
      ::kill(it->second, SIGKILL);
    }
    if (const auto it = last_pgid.find(k.which); it != last_pgid.end()) {
      ::kill(-it->second, SIGKILL);
    }
  }

  void apply(const StartTimer& t) {
    asio::steady_timer& timer = t.which == Timer::term_grace ? term_timer : ray_timer;
    timer.expires_after(t.after);
    timer.async_wait([this, which = t.which](const boost::system::error_code& ec) {
      if (!ec && !exited) {
        dispatch(TimerFired{which});
      }
    });
  }

  void apply(const CancelTimer& t) { (t.which == Timer::term_grace ? term_timer : ray_timer).cancel(); }

  void apply(const CheckLeftovers&) {
    reap();  // what already exited is not left over
    std::set<pid_t> known;
    for (const auto& [pid, which] : children) {
      known.insert(pid);
    }
    post_event(Leftovers{count_child_processes(known)});
  }

  void apply(const Log& l) {
    const auto level = l.level == Log::Level::info ? spdlog::level::info
                       : l.level == Log::Level::warn ? spdlog::level::warn
                                                     : spdlog::level::err;
    spdlog::log(level, "{}", l.text);
  }

  void apply(const Exit& e) {
    exited = true;
    exit_code = e.code;
    state.reason = e.reason;
    write_termination_message(spec.termination_log, e.reason);
    if (e.code == 0) {
      spdlog::info("exiting 0: {}", e.reason);
    } else {
      spdlog::error("exiting {}: {}", e.code, e.reason);
    }
    wait_thread.request_stop();
    term_timer.cancel();
    ray_timer.cancel();
    boost::system::error_code ignored;
    signals.close(ignored);
    io.stop();
  }

  std::map<Child, pid_t> last_pgid;  // the group of each child ever spawned (for KillGroup)
};

Supervisor::Supervisor(asio::io_context& io, RunSpec spec, RunState& state)
    : m_impl(std::make_unique<Impl>(io, std::move(spec), state)) {}

Supervisor::~Supervisor() = default;

int Supervisor::run() {
  Impl& s = *m_impl;
  if (::getpid() != 1) {
    // Orphans of Ray and of the command are reparented to us, not to the node's init: we reap
    // them, and see them when checking what outlived `ray start` (tini's -s).
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  }
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD}) {
    sigaddset(&mask, sig);
  }
  const int fd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) {
    spdlog::error("signalfd: {}", std::strerror(errno));
    return exit_code::os_error;
  }
  s.signals.assign(fd);
  s.read_signals();
  s.post_event(Start{});
  try {
    s.io.run();
  } catch (const std::exception& e) {
    // A bug must not leave Ray running behind a dead PID 1's back: kill what we started.
    spdlog::critical("internal error in the supervisor: {} (please report it); killing Ray and the command", e.what());
    for (const auto& [which, pgid] : s.last_pgid) {
      ::kill(-pgid, SIGKILL);
    }
    write_termination_message(s.spec.termination_log, std::string("internal error in raylaunch: ") + e.what());
    s.exited = true;
    s.exit_code = exit_code::software;
  }
  s.wait_thread.request_stop();
  if (s.wait_thread.joinable()) {
    s.wait_thread.join();
  }
  return s.exited ? s.exit_code : exit_code::software;
}

}  // namespace launcher::supervisor
