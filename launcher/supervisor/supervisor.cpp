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
#include <memory>
#include <set>
#include <spdlog/spdlog.h>
#include <system_error>
#include <thread>

#include "supervisor/processes.hpp"
#include "supervisor/spawn.hpp"
#include "supervisor/output_relay.hpp"
#include "util/exit_codes.hpp"
#include "util/signals.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t k_reason_output_lines = 3;
// tini reaps on every SIGCHLD and once a second besides; the same tick sees a watched group
// or straggler go, whose last process may not be raylaunch's child (no SIGCHLD for us).
constexpr std::chrono::seconds k_tick{1};

const char* wait_name(Wait w) {
  switch (w) {
    case Wait::preflight:
      return "the wait for Redis";
    case Wait::local_gcs:
      return "the wait for the local GCS";
    case Wait::join:
      return "the join barrier";
    case Wait::head:
      return "the wait for the head";
    case Wait::diagnose:
      return "the look at the head";
    case Wait::watch:
      return "the head watch";
    case Wait::drain:
      return "the drain";
  }
  return "a wait";
}

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
  // Redacted whole, before any cut.
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
        ray_timer(io), stragglers_timer(io), killed_timer(io), tick(io) {}

  asio::io_context& io;
  RunSpec spec;
  RunState& state;
  Lifecycle lifecycle;
  asio::posix::stream_descriptor signals;
  signalfd_siginfo siginfo{};
  asio::steady_timer term_timer;
  asio::steady_timer ray_timer;
  asio::steady_timer stragglers_timer;
  asio::steady_timer killed_timer;
  asio::steady_timer tick;
  std::map<pid_t, Child> children;
  std::map<Child, Clock::time_point> started;
  ChildGroups groups;
  std::unique_ptr<OutputRelay> ray_output;
  std::unique_ptr<OutputRelay> ray_stop_output;
  std::jthread wait_thread;
  bool watching_command_group = false;
  bool watching_stragglers = false;
  int stragglers_signal = 0;             // what stragglers get (also any that appears later)
  std::set<pid_t> stragglers_signalled;  // and who got it
  int stragglers_seen = -1;
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
    state.command_restarts = lifecycle.restarts();
    state.command_exit_code = lifecycle.command_exit_code().value_or(-1);
  }

  void read_signals() {
    signals.async_read_some(asio::buffer(&siginfo, sizeof siginfo), [this](const boost::system::error_code& ec,
                                                                           std::size_t n) {
      if (ec == asio::error::operation_aborted || exited) {
        return;
      }
      if (ec || n != sizeof siginfo) {
        // Never stop reading: a PID 1 that no longer reads its signals is deaf to SIGTERM.
        spdlog::error("reading signals failed: {}; retrying", ec ? ec.message() : "a short read");
        post_later([this] { read_signals(); });
        return;
      }
      on_signal(static_cast<int>(siginfo.ssi_signo));
      read_signals();
    });
  }

  void on_signal(int signo) {
    if (signo == SIGCHLD) {
      reap();
    } else if (util::is_forwarded(signo)) {
      spdlog::info("received {}", util::signal_name(signo));
      dispatch(SignalReceived{signo});
    }
  }

  // Once a second: reap what a lost SIGCHLD would leave, and look at the watched processes.
  void arm_tick() {
    tick.expires_after(k_tick);
    tick.async_wait([this](const boost::system::error_code& ec) {
      if (ec || exited) {
        return;
      }
      reap();
      arm_tick();
    });
  }

  // The one waitpid(-1) loop: every status is collected here, known children's go to the
  // lifecycle, orphans (reparented to PID 1 or to this subreaper) are simply reaped.
  void reap() {
    for (;;) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0) {
        break;
      }
      const auto it = children.find(pid);
      if (it == children.end()) {
        spdlog::debug("reaped orphan process {} ({})", pid, util::describe_status(status));
        continue;
      }
      const Child which = it->second;
      children.erase(it);
      groups.leader_reaped(which);
      ChildExited e;
      e.which = which;
      e.code = util::exit_code_of_status(status);
      e.how = util::describe_status(status);
      e.ran = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started[which]);
      e.group_left = static_cast<int>(groups.members(which, list_processes()).size());
      e.at = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - state.started_at);
      if (which == Child::ray) {
        if (ray_output) {
          ray_output->drain();
          e.detail = ray_output->last_lines(k_reason_output_lines);
        }
      }
      if (which == Child::ray_stop && ray_stop_output) {
        ray_stop_output->drain();
      }
      const bool expected = which == Child::command || e.code == 0 || lifecycle.phase() == Phase::stopping;
      spdlog::log(expected ? spdlog::level::info : spdlog::level::warn, "{} (pid {}) {}", child_name(which), pid, e.how);
      dispatch(e);
    }
    look_at_watched();
  }

  void look_at_watched() {
    if (exited || (!watching_command_group && !watching_stragglers)) {
      return;
    }
    const std::vector<ProcessInfo> all = list_processes();
    if (watching_command_group && groups.members(Child::command, all).empty()) {
      watching_command_group = false;
      post_event(GroupGone{Child::command});
    }
    if (watching_stragglers) {
      const auto now = stragglers(all);
      if (stragglers_signal != 0) {
        for (const ProcessInfo& p : now) {
          if (stragglers_signalled.insert(p.pid).second) {
            ::kill(p.pid, stragglers_signal);
          }
        }
      }
      if (static_cast<int>(now.size()) != stragglers_seen) {
        stragglers_seen = static_cast<int>(now.size());
        post_event(Stragglers{stragglers_seen, describe_processes(now)});
      }
    }
  }

  std::vector<ProcessInfo> stragglers(const std::vector<ProcessInfo>& all) const {
    std::set<pid_t> known;
    for (const auto& [pid, which] : children) {
      known.insert(pid);
    }
    return children_of(all, ::getpid(), known);
  }

  void post_event(Event e) {
    asio::post(io, [this, e = std::move(e)] {
      if (!exited) {
        dispatch(e);
      }
    });
  }

  template <typename F>
  void post_later(F f) {
    auto timer = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(100));
    timer->async_wait([timer, f = std::move(f)](const boost::system::error_code& ec) {
      if (!ec) {
        f();
      }
    });
  }

  // --- effects out -------------------------------------------------------------------------
  void apply(const StartWait& w) {
    // One wait at a time, never two: the new wait's thread first joins the last one (asked to
    // stop, or done already: its result is what got us here), off the event loop. So waits never
    // run side by side on what they share (the drain follows the head watch it cancelled, on the
    // same GCS client; app/run_waits.hpp).
    auto previous = std::make_shared<std::jthread>(std::move(wait_thread));
    previous->request_stop();
    try {
      wait_thread = std::jthread([this, which = w.which, previous](std::stop_token stop) {
        if (previous->joinable()) {
          previous->join();
        }
        run_wait(which, std::move(stop));
      });
    } catch (const std::exception& e) {
      // No thread (EAGAIN at a pod's pids limit): the wait failed, and the run goes on as after
      // any failed wait (a drain then stops Ray, a watch leaves Ray unwatched), never exit 70.
      wait_thread = std::move(*previous);
      const auto* error = dynamic_cast<const std::system_error*>(&e);
      WaitFinished failed{w.which, util::WaitEnd::unreachable,
                          std::string("could not start a thread for ") + wait_name(w.which) + ": " +
                              (error != nullptr ? error->code().message() : std::string(e.what())) +
                              " (the pod's pids limit?)"};
      failed.not_started = true;
      failed.code = exit_code::os_error;
      spdlog::error("{}", failed.reason);
      post_event(std::move(failed));
    }
  }

  // On the wait's own thread. A wait that throws (a bug) ends as a failed wait with the reason,
  // never in std::terminate.
  void run_wait(Wait which, std::stop_token stop) {
    WaitFinished result;
    try {
      result = spec.wait(which, std::move(stop));
    } catch (const std::exception& e) {
      result = WaitFinished{which, util::WaitEnd::unreachable,
                            std::string("internal error in raylaunch's wait: ") + e.what() + " (please report it)"};
      result.internal_error = true;
    } catch (...) {
      result = WaitFinished{which, util::WaitEnd::unreachable, "internal error in raylaunch's wait (please report it)"};
      result.internal_error = true;
    }
    result.which = which;
    try {
      post_event(std::move(result));
    } catch (...) {
      spdlog::critical("the wait's result could not be handed back (out of memory?)");
    }
  }

  void apply(const CancelWait&) { wait_thread.request_stop(); }

  const SpawnRequest& request_of(Child which) const {
    return which == Child::ray ? spec.ray : which == Child::command ? spec.command : spec.ray_stop;
  }

  void apply(const Spawn& s) {
    SpawnRequest request = request_of(s.which);
    request.set_env.insert(request.set_env.end(), s.env.begin(), s.env.end());
    auto child = spawn_child(request);
    if (!child) {
      spdlog::error("{} could not be started: {}", child_name(s.which), child.error().message);
      post_event(ChildExited{s.which, child.error().code, "could not be started", std::nullopt,
                             child.error().message, 0});
      return;
    }
    const pid_t pid = child.value().pid;
    children[pid] = s.which;
    groups.started(s.which, pid);
    started[s.which] = Clock::now();
    spdlog::info("started {} (pid {})", child_name(s.which), pid);
    if (s.which == Child::ray) {
      state.ray_started = true;
      state.ray_started_at = Clock::now();
      state.ray_started_wall_ms.store(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
    }
    // Ray's output, and `ray stop`'s, is read and logged: a pipe nobody reads would block it,
    // and a closed one kills it (Ray's CLI exits 1 at its first EPIPE, before its work is done).
    if (child.value().output.valid()) {
      auto relay = std::make_unique<OutputRelay>(io, std::move(child.value().output),
                                                 s.which == Child::ray ? "ray: " : "ray stop: ");
      (s.which == Child::ray ? ray_output : ray_stop_output) = std::move(relay);
    }
  }

  void apply(const ExecCommand& x) {
    spdlog::info("replacing raylaunch with the command (--exec)");
    spdlog::default_logger()->flush();  // bounded: a stalled stderr does not hold the exec
    const ExecAttempt attempt = exec_in_place(spec.command.exe, spec.command.argv, spec.command.drop_env, x.env);
    // Only a failed or interrupted exec gets here, with raylaunch as it was.
    reap();  // a SIGCHLD the exec window consumed
    if (attempt.interrupted_by != 0) {
      spdlog::info("received {} as the command was being executed", util::signal_name(attempt.interrupted_by));
      post_event(SignalReceived{attempt.interrupted_by});
      asio::post(io, [this, signo = attempt.interrupted_by, again = x] {
        if (exited || !lifecycle.running(Child::command)) {
          return;
        }
        if (lifecycle.phase() == Phase::running_command) {
          apply(again);  // a forwarded signal had no one to go to: try again
        } else {
          dispatch(ChildExited{Child::command, exit_code::killed_by(signo), "was not started",
                               std::nullopt, util::signal_name(signo) + " came first", 0});
        }
      });
      return;
    }
    spdlog::error("the command could not be executed: {}", attempt.error.message);
    post_event(ChildExited{Child::command, attempt.error.code, "could not be executed", std::nullopt,
                           attempt.error.message, 0});
  }

  void apply(const SendSignal& s) {
    if (!groups.pgid(s.which)) {
      return;
    }
    spdlog::info("sending {} to {} ({} {})", util::signal_name(s.signo), child_name(s.which),
                 s.group ? "process group" : "pid", *groups.pgid(s.which));
    groups.signal(s.which, s.signo, s.group);
  }

  void apply(const KillGroup& k) {
    // Each child leads its own process group (spawn.cpp); the group outlives its
    // leader, so this also reaches what the command left behind after it exited.
    groups.signal(k.which, SIGKILL, false);
    groups.signal(k.which, SIGKILL, true);
  }

  void apply(const WatchGroup& w) {
    if (w.which == Child::command) {
      watching_command_group = true;
      look_at_watched();
    }
  }

  asio::steady_timer& timer_of(Timer which) {
    switch (which) {
      case Timer::term_grace:
        return term_timer;
      case Timer::ray_stop_grace:
        return ray_timer;
      case Timer::stragglers:
        return stragglers_timer;
      case Timer::killed:
        break;
    }
    return killed_timer;
  }

  void apply(const StartTimer& t) {
    asio::steady_timer& timer = timer_of(t.which);
    timer.expires_after(t.after);
    timer.async_wait([this, which = t.which](const boost::system::error_code& ec) {
      if (!ec && !exited) {
        dispatch(TimerFired{which});
      }
    });
  }

  void apply(const CancelTimer& t) { timer_of(t.which).cancel(); }

  void apply(const CheckLeftovers&) {
    reap();  // what already exited is not left over
    // Ray's processes stay in `ray start`'s process group (Ray spawns them without setsid);
    // what else outlived the command is not Ray's, and not `ray stop`'s to find.
    post_event(Leftovers{static_cast<int>(groups.members(Child::ray, list_processes()).size())});
  }

  void apply(const CheckStragglers&) {
    reap();
    watching_stragglers = true;
    stragglers_seen = -1;
    look_at_watched();
  }

  void apply(const SignalStragglers& s) {
    stragglers_signal = s.signo;
    stragglers_signalled.clear();
    for (const ProcessInfo& p : stragglers(list_processes())) {
      stragglers_signalled.insert(p.pid);
      ::kill(p.pid, s.signo);
    }
  }

  void apply(const Log& l) {
    const auto level = l.level == Log::Level::info ? spdlog::level::info
                       : l.level == Log::Level::warn ? spdlog::level::warn
                                                     : spdlog::level::err;
    spdlog::log(level, "{}", l.text);
  }

  void apply(const RecordRun& r) {
    if (spec.record_run) {
      spec.record_run(r.runs);
    }
  }

  void apply(const StartWatches&) {
    if (spec.start_watches) {
      // Called on the watches' thread: asio::post is safe from any thread, and the watches are
      // stopped (joined) before this Impl goes (StopWatches, and Supervisor::run's end).
      spec.start_watches([this](StopCommand c) { post_event(std::move(c)); });
    }
  }

  void apply(const StopWatches&) {
    if (spec.stop_watches) {
      spec.stop_watches();
    }
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
    for (asio::steady_timer* t : {&term_timer, &ray_timer, &stragglers_timer, &killed_timer, &tick}) {
      t->cancel();
    }
    boost::system::error_code ignored;
    signals.close(ignored);
    io.stop();
  }
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
  const int fd = ::signalfd(-1, &util::blocked_signals(), SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) {
    spdlog::error("signalfd: {}", std::strerror(errno));
    return exit_code::os_error;
  }
  s.signals.assign(fd);
  s.read_signals();
  s.arm_tick();
  s.post_event(Start{});
  try {
    s.io.run();
  } catch (const std::exception& e) {
    // A bug in the supervisor itself (the health endpoint and the helper threads have firewalls
    // of their own) must not leave Ray running behind a dead PID 1's back: kill what we started.
    spdlog::critical("internal error in the supervisor: {} (please report it); killing Ray and the command", e.what());
    s.groups.kill_all();
    write_termination_message(s.spec.termination_log, std::string("internal error in raylaunch: ") + e.what());
    s.exited = true;
    s.exit_code = exit_code::software;
  }
  if (s.spec.stop_watches) {
    s.spec.stop_watches();  // none may post to this loop once it is gone
  }
  s.wait_thread.request_stop();
  if (s.wait_thread.joinable()) {
    s.wait_thread.join();
  }
  spdlog::default_logger()->flush();
  return s.exited ? s.exit_code : exit_code::software;
}

}  // namespace launcher::supervisor
