// The lifecycle's second half: how a run ends. Timers (graces), leftovers and stragglers, the
// command's group, the stop of Ray, the drain and the in-place restart, and the exit itself; the
// events that start and run things are in lifecycle.cpp.
#include <algorithm>
#include <csignal>

#include "supervisor/lifecycle.hpp"
#include "util/exit_codes.hpp"
#include "util/parse.hpp"
#include "util/signals.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace {

std::string processes(int n) { return std::to_string(n) + (n == 1 ? " process" : " processes"); }

// A drain that overran its own deadline (a bug, or a clock that jumped) still ends: Ray is
// stopped this long after the drain's window.
constexpr std::chrono::milliseconds k_drain_overrun{5'000};

// `ray start`'s stop grace once the drain has seen this node's raylet exit. Nothing of Ray's
// runs there to finish, and a `ray start` still in its start-up cannot stop sooner by itself:
// Node.__init__ waits up to 30 s (raylet_start_wait_time_s) in one C++ call for its own node to
// be ALIVE, and a drained node is DEAD; Python runs the SIGTERM handler only after that call
// returns (Ray 2.60, ray/_private/node.py; seen under load when a pod was deleted just after
// its node joined). A `ray start` past its start-up stops within ~1 s (kill_all_processes).
constexpr std::chrono::milliseconds k_gone_node_stop_grace{5'000};

// A process goes within milliseconds of SIGKILL, unless it is in uninterruptible sleep (D state:
// a hung NFS mount, a GPU driver call); a large CUDA process can take seconds to give its GPU
// memory back. Past this, the run goes on without it, and says so.
constexpr std::chrono::milliseconds k_after_sigkill{10'000};

}  // namespace

std::vector<Effect> Lifecycle::on_timer(const TimerFired& t) {
  std::vector<Effect> out;
  if (t.which == Timer::killed) {
    killed_too_long(out);
  } else if (t.which == Timer::term_grace && command_running()) {
    out.emplace_back(Log{Log::Level::warn, "the command did not exit within the term grace (" +
                                               util::format_duration(m_s.term_grace) + "): SIGKILL to its group"});
    m_command->killed = true;
    kill(out, Child::command);
  } else if (t.which == Timer::term_grace && group_wait()) {
    out.emplace_back(Log{Log::Level::warn, "the command's process group did not exit within the term grace (" +
                                               util::format_duration(m_s.term_grace) + "): SIGKILL to what is left"});
    m_command->killed = true;
    if (m_command->then == CommandRun::Then::rerun) {
      // The rerun waits for the killed group to be gone: it may still hold GPU memory. The group
      // is still watched; GroupGone (or the bound) starts the rerun.
      kill(out, Child::command);
      return out;
    }
    m_command->group_wait = false;
    out.emplace_back(KillGroup{Child::command});
    after_command(out);
  } else if (t.which == Timer::term_grace && m_phase == Phase::draining) {
    out.emplace_back(Log{Log::Level::warn, "the drain did not end within its window (" +
                                               util::format_duration(m_s.term_grace) + "): stopping Ray"});
    m_reason += "; the drain did not end within its window";
    cancel_wait(out);
    stop_ray(out);
  } else if (t.which == Timer::stragglers) {
    out.emplace_back(Log{Log::Level::warn, "processes that outlived the command and Ray did not exit within the term "
                                           "grace (" + util::format_duration(m_s.term_grace) + "): SIGKILL"});
    out.emplace_back(SignalStragglers{SIGKILL});
    m_phase = Phase::done;
    out.emplace_back(exit_now());
  } else if (t.which == Timer::ray_stop_grace) {
    if (m_ray_running && m_node_gone) {
      out.emplace_back(Log{Log::Level::info, "ray start did not stop within " + util::format_duration(ray_stop_grace()) +
                                                 " though its node had drained and its raylet exited (a ray start "
                                                 "still starting waits up to 30 s for its node): nothing of Ray's "
                                                 "runs here to lose, SIGKILL to its group"});
      kill(out, Child::ray);
    } else if (m_ray_running) {
      out.emplace_back(Log{Log::Level::warn, "ray start did not stop within " +
                                                 util::format_duration(m_s.ray_stop_grace) + ": SIGKILL to its group"});
      kill(out, Child::ray);
    } else if (m_ray_stop_running) {
      kill(out, Child::ray_stop);
    }
  }
  return out;
}

std::vector<Effect> Lifecycle::on_leftovers(const Leftovers& l) {
  std::vector<Effect> out;
  if (l.count > 0 && !m_ray_stop_running) {
    m_ray_stop_running = true;
    out.emplace_back(Log{Log::Level::warn, std::to_string(l.count) +
                                               " of Ray's processes outlived ray start: running `ray stop` as a fallback"});
    out.emplace_back(Spawn{Child::ray_stop});
    out.emplace_back(StartTimer{Timer::ray_stop_grace, m_s.ray_stop_grace});
    return out;
  }
  finish(out);
  return out;
}

std::vector<Effect> Lifecycle::on_group_gone(const GroupGone& g) {
  std::vector<Effect> out;
  if (g.which == Child::command && group_wait()) {
    m_command->group_wait = false;
    if (m_killed == Child::command) {
      killed_gone(out, Child::command);
    } else {
      out.emplace_back(CancelTimer{Timer::term_grace});
    }
    after_command(out);
  }
  return out;
}

void Lifecycle::kill(std::vector<Effect>& out, Child which) {
  out.emplace_back(KillGroup{which});
  out.emplace_back(StartTimer{Timer::killed, k_after_sigkill});
  m_killed = which;
}

void Lifecycle::killed_gone(std::vector<Effect>& out, Child which) {
  if (m_killed == which) {
    m_killed.reset();
    out.emplace_back(CancelTimer{Timer::killed});
  }
}

void Lifecycle::killed_too_long(std::vector<Effect>& out) {
  if (!m_killed) {
    return;
  }
  const Child which = *m_killed;
  m_killed.reset();
  const std::string late = " did not exit within " + util::format_duration(k_after_sigkill) +
                           " of SIGKILL (uninterruptible sleep, D state?)";
  if (which == Child::command && group_wait()) {  // the failed command's group, before its rerun
    out.emplace_back(Log{Log::Level::warn, "the failed command's process group is still there " +
                                               util::format_duration(k_after_sigkill) +
                                               " after SIGKILL (uninterruptible sleep, D state?): running the command "
                                               "again without waiting for it"});
    m_command->group_wait = false;
    after_command(out);
  } else if (which == Child::command && command_running()) {
    out.emplace_back(Log{Log::Level::warn, "the command" + late + ": stopping Ray without waiting for it"});
    m_command->leader_running = false;
    command_leader_gone(out);
    m_reason += "; the command" + late;
    after_command(out);
  } else if (which == Child::ray && m_ray_running) {
    out.emplace_back(Log{Log::Level::warn, "ray start" + late + ": ending the run without it"});
    m_ray_running = false;
    m_leftovers_checked = true;  // SIGKILL already went to Ray's whole group: no `ray stop` for it
    m_reason += "; ray start" + late;
    finish(out);
  } else if (which == Child::ray_stop && m_ray_stop_running) {
    out.emplace_back(Log{Log::Level::warn, "ray stop" + late + ": ending the run without it"});
    m_ray_stop_running = false;
    finish(out);
  }
}

std::vector<Effect> Lifecycle::on_stragglers(const Stragglers& s) {
  std::vector<Effect> out;
  if (!m_stragglers_checked) {
    return out;
  }
  if (s.count == 0) {
    if (m_stragglers_signalled) {
      out.emplace_back(CancelTimer{Timer::stragglers});
    }
    m_phase = Phase::done;
    out.emplace_back(exit_now());
    return out;
  }
  if (!m_stragglers_signalled) {
    // As PID 1 the kernel would SIGKILL them when raylaunch exits; not PID 1 they would outlive
    // it. Either way they get what the command got: SIGTERM and the term grace.
    m_stragglers_signalled = true;
    out.emplace_back(Log{Log::Level::warn, processes(s.count) + " outlived the command and Ray (" +
                                               s.sample + "): SIGTERM, SIGKILL after the term grace (" +
                                               util::format_duration(m_s.term_grace) + ")"});
    out.emplace_back(SignalStragglers{SIGTERM});
    out.emplace_back(StartTimer{Timer::stragglers, m_s.term_grace});
  }
  return out;
}

SendSignal Lifecycle::to_command(int signo) const {
  // Once the leader is gone, only its group is left to signal.
  const bool group = m_s.command_signals == CommandSignals::group || !command_running();
  return SendSignal{Child::command, signo, group};
}

void Lifecycle::command_group_left(std::vector<Effect>& out, int left, bool signalled, bool grace_running) {
  m_command->group_wait = true;
  const std::string n = processes(left) + " of its group still run";
  if (signalled) {
    out.emplace_back(Log{Log::Level::info, "the command exited; " + n + ", with the rest of the term grace"});
  } else {
    out.emplace_back(Log{Log::Level::info, "the command exited; " + n + ": " + util::signal_name(m_stop_signal) +
                                               " to them, SIGKILL after the term grace"});
    out.emplace_back(SendSignal{Child::command, m_stop_signal, true});
  }
  if (!grace_running) {
    out.emplace_back(StartTimer{Timer::term_grace, m_s.term_grace});
  }
  out.emplace_back(WatchGroup{Child::command});
}

void Lifecycle::after_command(std::vector<Effect>& out) {
  switch (m_command ? m_command->then : CommandRun::Then::stop_ray) {
    case CommandRun::Then::rerun:
      // Each rerun waits for the barrier again: a worker whose container restarted with the
      // failure is back (and counted once, by its name) before the command needs it.
      m_command->then = CommandRun::Then::stop_ray;
      m_phase = Phase::joining;
      start_wait(out, Wait::join);
      return;
    case CommandRun::Then::stay:
      m_phase = Phase::staying;
      return;
    case CommandRun::Then::stop_ray:
      stop_ray(out);
      return;
  }
}

void Lifecycle::shut_down(std::vector<Effect>& out, int code, std::string reason, std::optional<int> command_signal) {
  if (m_phase == Phase::stopping || m_phase == Phase::done) {
    return;
  }
  m_phase = Phase::stopping;
  m_exit_code = code;
  m_reason = std::move(reason);
  cancel_wait(out);
  if (command_running()) {
    m_stop_signal = command_signal.value_or(SIGTERM);
    out.emplace_back(to_command(m_stop_signal));
    out.emplace_back(StartTimer{Timer::term_grace, m_s.term_grace});
    return;  // Ray is stopped once the command (and its group) has exited
  }
  stop_ray(out);
}

void Lifecycle::stop_ray(std::vector<Effect>& out) {
  m_phase = Phase::stopping;
  if (m_ray_running) {
    if (!m_ray_stop_sent) {
      // `ray start --block` stops every process it started on SIGTERM, then exits 1
      // (python/ray/_private/node.py, _register_shutdown_hooks).
      m_ray_stop_sent = true;
      out.emplace_back(SendSignal{Child::ray, SIGTERM});
      out.emplace_back(StartTimer{Timer::ray_stop_grace, ray_stop_grace()});
    }
    return;
  }
  if (!m_leftovers_checked) {
    m_leftovers_checked = true;
    out.emplace_back(CheckLeftovers{});
    return;
  }
  if (!m_ray_stop_running) {
    finish(out);
  }
}

std::chrono::milliseconds Lifecycle::ray_stop_grace() const {
  return m_node_gone ? std::min(m_s.ray_stop_grace, k_gone_node_stop_grace) : m_s.ray_stop_grace;
}

void Lifecycle::start_wait(std::vector<Effect>& out, Wait which) {
  m_wait_running = true;
  m_wait = which;
  out.emplace_back(StartWait{which});
}

void Lifecycle::cancel_wait(std::vector<Effect>& out) {
  if (m_wait_running) {
    out.emplace_back(CancelWait{});
    m_wait_running = false;
  }
}

void Lifecycle::start_drain(std::vector<Effect>& out, int signo) {
  // Ray is stopped after the drain: what a spot interruption or a node drain wants is the
  // node's work finished or handed on, and the GCS told why the node goes (docs/run.md).
  m_phase = Phase::draining;
  m_exit_code = exit_code::killed_by(signo);
  m_stop_signal = signo;
  m_reason = "stopped by " + util::signal_name(signo) + " while Ray ran";
  cancel_wait(out);  // the head watch
  out.emplace_back(Log{Log::Level::info, "received " + util::signal_name(signo) +
                                             ": draining this node before Ray stops (at most " +
                                             util::format_duration(m_s.term_grace) + ")"});
  start_wait(out, Wait::drain);
  out.emplace_back(StartTimer{Timer::term_grace, m_s.term_grace + k_drain_overrun});
}

std::vector<Effect> Lifecycle::on_stop_command(const StopCommand& s) {
  std::vector<Effect> out;
  if (m_phase != Phase::running_command || !command_running() || m_command->stopped_for) {
    return out;  // the command is not running (or already being stopped): nothing to stop
  }
  m_command->stopped_for = s;
  m_stop_signal = SIGTERM;
  out.emplace_back(Log{Log::Level::warn,
                       s.reason + ": stopping the command (SIGTERM, SIGKILL after the term grace, " +
                           util::format_duration(m_s.term_grace) + "); its run ends with " + std::to_string(s.code) +
                           (m_budget.enabled() ? ", and it runs again in place if the restart budget allows"
                                               : " (RAYLAUNCH_RESTARTS=0: not run again)")});
  out.emplace_back(to_command(SIGTERM));
  out.emplace_back(StartTimer{Timer::term_grace, m_s.term_grace});
  return out;
}

void Lifecycle::command_leader_gone(std::vector<Effect>& out) {
  if (m_s.watch_command && !m_s.exec) {
    out.emplace_back(StopWatches{});
  }
}

bool Lifecycle::restart_after(std::vector<Effect>& out, const ChildExited& e) {
  if (!m_budget.enabled() || !retryable_exit(e.code) || !m_budget.take(e.at)) {
    return false;
  }
  const std::string ran = e.ran ? " after " + util::format_elapsed(*e.ran) : "";
  m_rerun_for = "the command had " + e.how + ran;
  out.emplace_back(Log{Log::Level::warn, "command " + e.how + ran +
                                             ": running it again in place (restart " +
                                             std::to_string(m_budget.used()) + ", at most " + m_budget.describe() +
                                             ") once the join barrier passes again"});
  return true;
}

void Lifecycle::run_command(std::vector<Effect>& out) {
  m_phase = Phase::running_command;
  m_command.emplace();  // a run of its own: nothing of the last one carries over
  if (!m_rerun_for.empty()) {
    ++m_reruns;
    m_rerun_for.clear();
  }
  // With the store, the count goes on from the runs of the head's earlier containers.
  const int count = m_s.earlier_runs + m_reruns;
  if (m_s.record_runs) {
    out.emplace_back(RecordRun{count + 1});
  }
  EnvAdditions env = {{k_nodes_present_env, std::to_string(m_nodes_present)},
                      {k_restart_count_env, std::to_string(count)}};
  // With --exec the command replaces raylaunch (this machine then ends with the process). A
  // failed execve comes back as the command's exit with 126/127 and the reason, which is never
  // retried: the run stops with that code. A signal that arrives during the exec is handled
  // first; the supervisor then tries again, or reports the command killed by it.
  if (m_s.exec) {
    out.emplace_back(ExecCommand{std::move(env)});
  } else {
    out.emplace_back(Spawn{Child::command, std::move(env)});
    if (m_s.watch_command) {
      out.emplace_back(StartWatches{});
    }
  }
}

Exit Lifecycle::exit_now() const {
  // What the restarts did, as it happened: reruns that started, and a failure whose rerun never did.
  std::string reason = m_reason;
  const std::string reruns = util::plural(m_reruns, "time");
  if (!m_rerun_for.empty()) {
    reason += "; " + m_rerun_for + " and was to run again in place (restart " + std::to_string(m_reruns + 1) +
              ", RAYLAUNCH_RESTARTS)" + (m_reruns > 0 ? "; it ran again in place " + reruns + " before" : "");
  } else if (m_reruns > 0) {
    reason += "; the command ran again in place " + reruns + " (RAYLAUNCH_RESTARTS)";
  }
  return Exit{m_exit_code, reason};
}

void Lifecycle::finish(std::vector<Effect>& out) {
  m_phase = Phase::stopping;
  if (!m_stragglers_checked) {
    m_stragglers_checked = true;
    out.emplace_back(CheckStragglers{});
  }
}

}  // namespace launcher::supervisor
