#include "supervisor/lifecycle.hpp"

#include <csignal>

#include "util/exit_codes.hpp"
#include "util/signals.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::starting:
      return "starting";
    case Phase::preflight:
      return "preflight";
    case Phase::waiting_head:
      return "waiting_head";
    case Phase::starting_ray:
      return "starting_ray";
    case Phase::joining:
      return "joining";
    case Phase::running_command:
      return "running_command";
    case Phase::running_ray:
      return "running_ray";
    case Phase::draining:
      return "draining";
    case Phase::restarting:
      return "restarting";
    case Phase::staying:
      return "staying";
    case Phase::stopping:
      return "stopping";
    case Phase::done:
      return "done";
  }
  return "?";
}

namespace {

bool ends_run(int signo) { return signo == SIGTERM || signo == SIGINT; }

int code_of(const WaitFinished& w) {
  if (w.internal_error) {
    return exit_code::software;
  }
  return w.code ? *w.code : util::exit_code_of(w.end, 0);
}

std::string with_detail(std::string line, const std::string& detail) {
  return detail.empty() ? line : line + ": " + detail;
}

const char* waiting_for(Phase p) {
  switch (p) {
    case Phase::preflight:
      return "while waiting for Redis";
    case Phase::waiting_head:
      return "while waiting for the head";
    case Phase::starting_ray:
      return "while Ray was starting";
    case Phase::joining:
      return "during the join barrier";
    case Phase::running_ray:
      return "while Ray ran";
    case Phase::running_command:
      return "while the command ran";
    case Phase::draining:
      return "while the node drained";
    default:
      return "";
  }
}

}  // namespace

std::optional<Child> Lifecycle::main_child() const {
  if (command_running()) {
    return Child::command;
  }
  if (m_ray_running) {
    return Child::ray;
  }
  return std::nullopt;
}

bool Lifecycle::running(Child c) const {
  switch (c) {
    case Child::ray:
      return m_ray_running;
    case Child::command:
      return command_running();
    case Child::ray_stop:
      return m_ray_stop_running;
  }
  return false;
}

std::vector<Effect> Lifecycle::on(const Event& event) {
  if (m_phase == Phase::done) {
    return {};
  }
  return std::visit(
      [this](const auto& e) -> std::vector<Effect> {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, Start>) {
          return on_start();
        } else if constexpr (std::is_same_v<T, WaitFinished>) {
          return on_wait(e);
        } else if constexpr (std::is_same_v<T, ChildExited>) {
          return on_exit(e);
        } else if constexpr (std::is_same_v<T, SignalReceived>) {
          return on_signal(e);
        } else if constexpr (std::is_same_v<T, TimerFired>) {
          return on_timer(e);
        } else if constexpr (std::is_same_v<T, Leftovers>) {
          return on_leftovers(e);
        } else if constexpr (std::is_same_v<T, GroupGone>) {
          return on_group_gone(e);
        } else if constexpr (std::is_same_v<T, Stragglers>) {
          return on_stragglers(e);
        } else {
          return on_stop_command(e);
        }
      },
      event);
}

std::vector<Effect> Lifecycle::on_start() {
  std::vector<Effect> out;
  if (!m_s.head) {
    m_phase = Phase::waiting_head;
    start_wait(out, Wait::head);
  } else if (m_s.preflight) {
    m_phase = Phase::preflight;
    start_wait(out, Wait::preflight);
  } else {
    m_phase = Phase::starting_ray;
    m_ray_running = true;
    out.emplace_back(Spawn{Child::ray, {}});
    start_wait(out, Wait::local_gcs);
  }
  return out;
}

std::vector<Effect> Lifecycle::on_wait(const WaitFinished& w) {
  std::vector<Effect> out;
  if (!m_wait_running || w.which != m_wait) {
    return out;  // cancelled on the way to the exit or to another wait: its answer is stale
  }
  m_wait_running = false;
  if (w.which == Wait::diagnose) {
    if (!w.reason.empty()) {
      m_reason += " (" + w.reason + ")";
    }
    stop_ray(out);
    return out;
  }
  if (w.which == Wait::drain) {
    out.emplace_back(CancelTimer{Timer::term_grace});
    m_node_gone = w.node_gone;
    if (!w.reason.empty()) {
      m_reason += (w.not_started ? "; not drained: " : "; ") + w.reason;
    }
    stop_ray(out);
    return out;
  }
  if (w.which == Wait::watch && (w.internal_error || w.not_started)) {
    // A bug in the watch, or no thread for it, must not end a healthy worker: it runs on
    // unwatched, as before.
    out.emplace_back(Log{Log::Level::error, "the head watch stopped: " + w.reason + "; Ray runs on unwatched"});
    return out;
  }
  if (m_phase == Phase::stopping || w.end == util::WaitEnd::stopped) {
    return out;  // cancelled on the way to the exit; the shutdown is under way
  }
  const bool ready = w.end == util::WaitEnd::ready;
  switch (w.which) {
    case Wait::preflight:
      if (!ready) {
        end_before_start(out, w);
        return out;
      }
      m_phase = Phase::starting_ray;
      m_ray_running = true;
      out.emplace_back(Spawn{Child::ray, {}});
      start_wait(out, Wait::local_gcs);
      return out;
    case Wait::local_gcs:
      if (!ready) {
        shut_down(out, code_of(w), w.reason, std::nullopt);
        return out;
      }
      m_phase = Phase::joining;
      start_wait(out, Wait::join);
      return out;
    case Wait::join:
      if (!ready) {
        shut_down(out, code_of(w), w.reason, std::nullopt);
        return out;
      }
      m_nodes_present = w.nodes;
      if (m_s.exec && !m_exec_ray_started) {
        // The barrier can pass before `ray start` (no --block) returns. The exec must wait for
        // it: the command would inherit it as a child it never reaps, and its exit 0 would read
        // as Ray dying under the command.
        m_exec_when_ray_returns = true;
        out.emplace_back(Log{Log::Level::info, "the join barrier passed; the command replaces raylaunch once ray start "
                                               "returns (--exec)"});
        return out;
      }
      run_command(out);
      return out;
    case Wait::head:
      if (!ready) {
        end_before_start(out, w);
        return out;
      }
      m_phase = Phase::running_ray;
      m_ray_running = true;
      out.emplace_back(Spawn{Child::ray, {}});
      if (m_s.watch_head) {
        start_wait(out, Wait::watch);
      }
      return out;
    case Wait::watch:
      // The head was replaced, or this node is DEAD in it: Ray here serves nobody any more.
      shut_down(out, code_of(w), w.reason, std::nullopt);
      return out;
    case Wait::diagnose:
    case Wait::drain:
      break;
  }
  return out;
}

std::vector<Effect> Lifecycle::on_exit(const ChildExited& e) {
  std::vector<Effect> out;
  switch (e.which) {
    case Child::ray:
      m_ray_running = false;
      killed_gone(out, Child::ray);
      if (m_ray_stop_sent) {
        out.emplace_back(CancelTimer{Timer::ray_stop_grace});
      }
      if (m_s.exec && e.code == 0 && !m_exec_ray_started &&
          (m_phase == Phase::starting_ray || m_phase == Phase::joining)) {
        // Without --block, `ray start` returns once Ray's processes run (exec mode).
        m_exec_ray_started = true;
        out.emplace_back(Log{Log::Level::info, "ray start returned; Ray's processes run on without it (--exec)"});
        if (m_exec_when_ray_returns) {
          m_exec_when_ray_returns = false;
          run_command(out);
        }
        return out;
      }
      if (!e.ran && e.code == exit_code::os_error && (m_phase == Phase::starting_ray || m_phase == Phase::running_ray)) {
        // Never started: a system call of raylaunch's failed (the pipe for its output, out of
        // file descriptors), 71, not Ray (nor the head) failing.
        shut_down(out, exit_code::os_error,
                  with_detail("ray start " + e.how +
                                  (m_phase == Phase::starting_ray ? std::string(" ") + waiting_for(m_phase) : ""),
                              e.detail),
                  std::nullopt);
        return out;
      }
      switch (m_phase) {
        case Phase::starting_ray:
        case Phase::joining:
          shut_down(out, exit_code::unavailable,
                    with_detail("ray start " + e.how + " " + waiting_for(m_phase), e.detail), std::nullopt);
          break;
        case Phase::running_command:
          shut_down(out, exit_code::unavailable,
                    with_detail("Ray died while the command ran (ray start " + e.how + ")", e.detail), SIGTERM);
          break;
        case Phase::running_ray:
          // A worker's Ray ends when its raylet gives up on an unreachable head, or a Ray
          // process dies: look at the head once, so the reason says which.
          m_phase = Phase::stopping;
          m_exit_code = exit_code::unavailable;
          m_reason = with_detail("ray start " + e.how, e.detail);
          cancel_wait(out);  // the head watch
          start_wait(out, Wait::diagnose);
          break;
        case Phase::draining:
          // A drained, idle raylet exits by itself, and `ray start --block` may follow it.
          m_reason += "; Ray exited while the node drained (ray start " + e.how + ")";
          cancel_wait(out);
          out.emplace_back(CancelTimer{Timer::term_grace});
          stop_ray(out);
          break;
        case Phase::restarting:
          // The rerun would wait in the barrier on a GCS that is gone, for the whole join
          // timeout: the run ends now, once what is left of the failed command's group is gone.
          m_command->then = CommandRun::Then::stop_ray;
          m_phase = Phase::stopping;
          m_exit_code = exit_code::unavailable;
          m_reason = with_detail("Ray died while the failed command's group was stopped (ray start " + e.how + ")",
                                 e.detail);
          if (!group_wait()) {
            after_command(out);
          }
          break;
        case Phase::staying:
          out.emplace_back(Log{Log::Level::warn, "Ray " + e.how +
                                                     " after the command succeeded; staying up anyway: exiting would "
                                                     "make Kubernetes rerun the command"});
          break;
        case Phase::stopping:
          if (!command_running() && !group_wait()) {
            stop_ray(out);
          }
          break;
        default:
          break;
      }
      return out;
    case Child::command:
      if (!m_command) {
        return out;  // never spawned: nothing of it to end
      }
      m_command->leader_running = false;
      m_command->exit_code = e.code;
      killed_gone(out, Child::command);
      command_leader_gone(out);
      if (m_phase == Phase::running_command && m_command->stopped_for) {
        // A watch had it stopped: the run ends with the watch's code (76, retryable), as if the
        // command had exited with it; what is left of its group keeps the rest of the grace.
        ChildExited stopped = e;
        stopped.code = m_command->stopped_for->code;
        stopped.how = "was stopped (" + m_command->stopped_for->reason + "; it " + e.how + ")";
        m_command->exit_code = stopped.code;
        m_command->stopped_for.reset();
        ended_on_its_own(out, stopped, true);
        return out;
      }
      if (m_phase == Phase::running_command) {
        ended_on_its_own(out, e, false);
        return out;
      }
      // We stopped it (SIGTERM, or Ray died): the grace is the whole group's, not its leader's.
      if (e.group_left > 0 && !m_command->killed) {
        command_group_left(out, e.group_left, m_s.command_signals == CommandSignals::group, true);
        return out;
      }
      out.emplace_back(CancelTimer{Timer::term_grace});
      after_command(out);
      return out;
    case Child::ray_stop:
      m_ray_stop_running = false;
      killed_gone(out, Child::ray_stop);
      out.emplace_back(CancelTimer{Timer::ray_stop_grace});
      finish(out);
      return out;
  }
  return out;
}

void Lifecycle::ended_on_its_own(std::vector<Effect>& out, const ChildExited& e, bool stopped) {
  // It exited on its own (or a watch stopped it): its status is the run's, unless it
  // succeeded under stay, or failed in a way worth running it again in place.
  if (restart_after(out, e)) {
    m_phase = Phase::restarting;
    m_command->then = CommandRun::Then::rerun;
  } else if (e.code == 0 && m_s.on_success == OnSuccess::stay) {
    m_phase = Phase::staying;
    m_command->then = CommandRun::Then::stay;
    out.emplace_back(Log{Log::Level::info, "command exited 0 after " + util::format_elapsed(e.ran.value_or(std::chrono::milliseconds(0))) +
                                               "; staying up (--on-success stay): Ray and the probes stay "
                                               "healthy, nothing reruns; delete the StatefulSet to end the run"});
  } else {
    m_phase = Phase::stopping;
    m_exit_code = e.code;
    m_reason = with_detail("command " + e.how + (e.ran ? " after " + util::format_elapsed(*e.ran) : ""),
                           e.detail);
    if (m_budget.enabled() && e.code != 0) {
      m_reason += retryable_exit(e.code) ? " (not run again: the restart budget, " + m_budget.describe() +
                                               ", is spent)"
                                         : " (not run again: exit status " + std::to_string(e.code) +
                                               " is not retryable)";
    }
  }
  if (e.group_left > 0 && !(stopped && m_command->killed)) {
    // Stopped by a watch, its group got SIGTERM with it (group mode) and its grace runs.
    command_group_left(out, e.group_left, stopped && m_s.command_signals == CommandSignals::group, stopped);
    return;
  }
  if (stopped) {
    out.emplace_back(CancelTimer{Timer::term_grace});
  }
  after_command(out);
}

std::vector<Effect> Lifecycle::on_signal(const SignalReceived& s) {
  std::vector<Effect> out;
  if (!ends_run(s.signo)) {
    // For the command only (`kill -USR1 1` for a hung job's stack dumps). `ray start` never gets
    // one: Ray's CLI has no handler for SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 or SIGALRM and dies of
    // them (Python's default action), taking the node, or on the head the cluster, with it.
    if (command_running()) {
      out.emplace_back(to_command(s.signo));
    } else if (m_ray_running) {
      out.emplace_back(Log{Log::Level::warn, util::signal_name(s.signo) +
                                                 " not forwarded: only the launch command gets it, while it runs; "
                                                 "ray start would die of it"});
    }
    return out;
  }
  m_stop_signal = m_phase == Phase::stopping ? m_stop_signal : s.signo;
  const std::string by = "stopped by " + util::signal_name(s.signo);
  switch (m_phase) {
    case Phase::starting:
    case Phase::preflight:
    case Phase::waiting_head:
      m_exit_code = exit_code::killed_by(s.signo);
      m_reason = by + (m_phase == Phase::starting ? std::string() : std::string(" ") + waiting_for(m_phase)) +
                 "; nothing was started";
      if (m_wait_running) {
        out.emplace_back(CancelWait{});
      }
      finish(out);
      break;
    case Phase::running_ray:
      if (m_s.drain) {
        start_drain(out, s.signo);
        break;
      }
      shut_down(out, exit_code::killed_by(s.signo), by + " " + waiting_for(m_phase), std::nullopt);
      break;
    case Phase::starting_ray:
    case Phase::joining:
      shut_down(out, exit_code::killed_by(s.signo), by + " " + waiting_for(m_phase), std::nullopt);
      break;
    case Phase::draining:
      // A second SIGTERM (or Ctrl-C): the drain is not worth waiting for any longer.
      m_reason += "; the drain was cut short by " + util::signal_name(s.signo);
      cancel_wait(out);
      out.emplace_back(CancelTimer{Timer::term_grace});
      stop_ray(out);
      break;
    case Phase::restarting:
      // The failed command's group is being stopped before the rerun: it is not rerun now.
      m_command->then = CommandRun::Then::stop_ray;
      m_phase = Phase::stopping;
      m_exit_code = exit_code::killed_by(s.signo);
      m_reason = by + " before the command was run again";
      if (group_wait()) {
        out.emplace_back(to_command(s.signo));
      } else {
        after_command(out);
      }
      break;
    case Phase::running_command:
      shut_down(out, exit_code::killed_by(s.signo), by + " while the command ran", s.signo);
      break;
    case Phase::staying:
      if (group_wait()) {  // still waiting for the successful command's group: Ray follows it
        m_command->then = CommandRun::Then::stop_ray;
        m_reason = "the command had succeeded; " + by + " while staying up";
        out.emplace_back(to_command(s.signo));
        break;
      }
      shut_down(out, exit_code::ok, "the command had succeeded; " + by + " while staying up", std::nullopt);
      break;
    case Phase::stopping:
      if (command_running() || group_wait()) {
        out.emplace_back(to_command(s.signo));  // a second Ctrl-C reaches it too
      } else if (m_wait_running) {
        // Looking at the head after a worker's Ray exited: the answer is not worth the grace.
        out.emplace_back(CancelWait{});
        m_wait_running = false;
        m_reason += " (" + by + " before the head was looked at)";
        stop_ray(out);
      }
      break;
    case Phase::done:
      break;
  }
  return out;
}

void Lifecycle::end_before_start(std::vector<Effect>& out, const WaitFinished& w) {
  m_exit_code = code_of(w);
  m_reason = w.reason;
  finish(out);  // nothing was started, nothing to stop
}

}  // namespace launcher::supervisor
