#pragma once
#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/config.hpp"
#include "supervisor/restart_budget.hpp"
#include "util/paced_wait.hpp"

namespace launcher::supervisor {

// The processes `run` owns. `ray` is `ray start` (with --block: its foreground process, which
// stops every Ray process it started when it gets SIGTERM); `ray_stop` is the fallback
// `ray stop`, run only when Ray processes outlive `ray start`.
enum class Child { ray, command, ray_stop };
// The blocking waits, run off the event loop: the Redis preflight (head, with GCS fault
// tolerance), the head's own GCS, the join barrier, a worker's wait for its head (and the
// version check against it), a worker's look at its head after Ray exited (for the reason
// line), a worker's watch on its head while Ray runs (ends only when the head was replaced or
// this node is DEAD), and a worker's drain of its own node after SIGTERM.
enum class Wait { preflight, local_gcs, join, head, diagnose, watch, drain };
// term_grace: the command's (and its group's) time after SIGTERM; ray_stop_grace: `ray start`'s
// (or the fallback `ray stop`'s) time to stop Ray; stragglers: what outlived everything; killed:
// how long a child (or the failed command's group, before its rerun) may take to go after SIGKILL.
enum class Timer { term_grace, ray_stop_grace, stragglers, killed };

// Where a signal for the command goes (RAYLAUNCH_FORWARD_SIGNALS). `ray start --block` always
// gets it alone: it stops Ray's processes in order itself, and a group signal would race that.
enum class CommandSignals {
  group,   // the command's whole process group (tini -g, dumb-init's default): a wrapper that
           // does not exec (`bash -c '…; python train.py'`) and what it started see it together
  leader,  // the command's process only, for a command that signals its own children in order;
           // once it exits, what is left of its group gets the signal and the rest of the grace
};

enum class Phase {
  starting,         // nothing started yet
  preflight,        // head: waiting for Redis
  waiting_head,     // worker: waiting for the head's GCS
  starting_ray,     // head: `ray start` spawned, waiting for its GCS
  joining,          // head: the join barrier
  running_command,  // head: the launch command runs
  running_ray,      // worker: `ray start --block` runs
  draining,         // worker: SIGTERM came; its node drains before Ray is stopped
  restarting,       // head: the command failed and runs again once what is left of its group is gone
  staying,          // head: the command succeeded, Ray stays up (--on-success stay)
  stopping,         // stopping the command and/or Ray
  done,
};
const char* to_string(Phase p);

struct Settings {
  bool head = true;
  bool preflight = false;              // wait for Redis before `ray start`
  bool exec = false;                   // replace raylaunch with the command after the barrier
  OnSuccess on_success = OnSuccess::exit;
  CommandSignals command_signals = CommandSignals::group;
  std::chrono::milliseconds term_grace{30'000};  // worker with `drain`: the drain's window
  std::chrono::milliseconds ray_stop_grace{15'000};
  bool watch_head = false;  // worker: watch the head while Ray runs (Wait::watch)
  bool drain = false;       // worker: on SIGTERM, drain this node before stopping Ray (Wait::drain)
  // Head: run the command again after a retryable failure (retryable_exit), at most `restarts`
  // times within any `restart_window`, each time after the join barrier again. 0: never.
  int restarts = 0;
  std::chrono::milliseconds restart_window{3'600'000};
  // Head on a GCS store (plan/gcs_store_runs.hpp): the command's starts that earlier containers of
  // this head recorded, where RAYLAUNCH_RESTART_COUNT goes on from; with `record_runs`, each start
  // is recorded first (RecordRun), so a restarted container counts on.
  int earlier_runs = 0;
  bool record_runs = false;
  // Head: the watches (the EFA counters, NCCL's RAS; app/run_watches) run while the command runs:
  // StartWatches when it is spawned, StopWatches when it exits. Not with `exec`.
  bool watch_command = false;
};

// Variables the command gets from the run itself, beyond the plan's environment.
inline constexpr const char* k_nodes_present_env = "RAYLAUNCH_NODES_PRESENT";  // pods ALIVE at its start
inline constexpr const char* k_restart_count_env = "RAYLAUNCH_RESTART_COUNT";  // 0, 1, 2, … (on from earlier_runs)

// Events the supervisor feeds in.
struct Start {};
struct WaitFinished {
  Wait which = Wait::head;
  util::WaitEnd end = util::WaitEnd::ready;
  std::string reason;  // one line when not ready (or, for `diagnose`, what the check found)
  bool internal_error = false;  // the wait threw (a bug): exit 70, not what `end` says
  bool not_started = false;     // no thread could run it (EAGAIN at a pids limit): `code` is 71
  std::optional<int> code{};    // the exit code when it is not what `end` says (78: versions differ)
  bool node_gone = false;       // drain: this node drained and its raylet exited (its row is DEAD)
  int nodes = 0;                // join: distinct pods ALIVE when it ended ready
};
struct ChildExited {
  Child which = Child::ray;
  int code = 0;                 // exit code, or 128 + signal
  std::string how;              // "exited with 3", "killed by SIGKILL"
  std::optional<std::chrono::milliseconds> ran;  // how long it ran; none when it never started
  std::string detail;           // e.g. Ray's last output lines, or why exec failed
  int group_left = 0;           // live processes still in its process group (it led one)
  std::chrono::milliseconds at{0};  // when, since the run started (the restart budget's clock)
};
struct SignalReceived {
  int signo = 0;
};
struct TimerFired {
  Timer which = Timer::term_grace;
};
// The answer to CheckLeftovers: how many of Ray's processes (its process group: `ray start`'s
// children never leave it) outlived `ray start`.
struct Leftovers {
  int count = 0;
};
// WatchGroup's answer: the group of `which`, whose leader exited, has no process left.
struct GroupGone {
  Child which = Child::command;
};
// The answer to CheckStragglers, and again each time it changes while they are signalled:
// processes that outlived the command and Ray (reparented to raylaunch: a daemon the command
// double-forked, torchrun's workers in sessions of their own).
struct Stragglers {
  int count = 0;
  std::string sample;  // "pid 42 (sleep), pid 43 (python3)"
};
// A watch asks for the command to be stopped (a stuck NCCL collective): it gets SIGTERM and the term
// grace, and its run ends with `code` (76), retryable: with --restarts it runs again in place.
struct StopCommand {
  std::string reason;  // one line: what the watch saw
  int code = 76;       // exit_code::stuck
};
using Event = std::variant<Start, WaitFinished, ChildExited, SignalReceived, TimerFired, Leftovers, GroupGone,
                           Stragglers, StopCommand>;

// Effects the supervisor carries out, in order.
struct StartWait {
  Wait which = Wait::head;
};
struct CancelWait {};
using EnvAdditions = std::vector<std::pair<std::string, std::string>>;
struct Spawn {
  Child which = Child::ray;
  EnvAdditions env{};  // set in this child's environment only (the command's RAYLAUNCH_NODES_PRESENT, …)
};
struct ExecCommand {
  EnvAdditions env{};
};
struct SendSignal {
  Child which = Child::ray;
  int signo = 0;
  bool group = false;  // to its whole process group (while the group lives), else to the child
};
struct KillGroup {  // SIGKILL to the child and its process group: nothing of it is left behind
  Child which = Child::command;
};
struct WatchGroup {  // answer GroupGone once the group of `which` (leader gone) is empty
  Child which = Child::command;
};
struct StartTimer {
  Timer which = Timer::term_grace;
  std::chrono::milliseconds after{0};
};
struct CancelTimer {
  Timer which = Timer::term_grace;
};
struct CheckLeftovers {};
struct CheckStragglers {};
struct SignalStragglers {  // to each straggler, and to any that appears while they are watched
  int signo = SIGTERM;
};
struct Log {
  enum class Level { info, warn, error } level = Level::info;
  std::string text;
};
struct Exit {
  int code = 0;
  std::string reason;  // the termination message: one line
};
struct RecordRun {  // the command is about to start: `runs` starts so far, this one included
  int runs = 0;
};
struct StartWatches {};  // the command was spawned: the watches start (Settings::watch_command)
struct StopWatches {};   // the command's process exited: the watches stop
using Effect = std::variant<StartWait, CancelWait, Spawn, ExecCommand, SendSignal, KillGroup, WatchGroup, StartTimer,
                            CancelTimer, CheckLeftovers, CheckStragglers, SignalStragglers, Log, Exit, RecordRun,
                            StartWatches, StopWatches>;

// What `run` does, as a state machine with no processes, clocks or sockets in it: events in,
// effects out. Unit-tested on its own (tests/supervisor/test_supervisor_lifecycle.cpp); the
// supervisor only carries the effects out.
//
// Head: [preflight] → ray start → its GCS answers → join barrier → command → stop Ray → exit
// with the command's status (or stay, on success, until SIGTERM). Worker: wait for the head →
// ray start --block → supervise it; when it exits, exit 69 with the reason.
// SIGTERM and SIGINT end the run: forwarded to the command (its group, or its leader: see
// CommandSignals; to `ray start` before it runs). The term grace runs for the whole group: when
// the leader exits first (a wrapper shell dies on SIGTERM), the rest keeps its grace — and
// gets the signal then, if it went to the leader only — and only what is left when the grace
// ends gets SIGKILL. The same for what a command that exited on its own left in its group
// (SIGTERM, grace, SIGKILL). Then Ray is stopped, then whatever outlived both (stragglers)
// gets SIGTERM, the term grace and SIGKILL; exit 128+N (0 when staying after success). Every
// other signal (util::is_forwarded) goes to the command only, while it runs, and changes nothing
// else; `ray start` never gets one (Ray's CLI dies of most of them).
class Lifecycle {
 public:
  explicit Lifecycle(Settings settings) : m_s(settings), m_budget(settings.restarts, settings.restart_window) {}

  std::vector<Effect> on(const Event& event);

  Phase phase() const { return m_phase; }
  // Times the command was run again in place (RAYLAUNCH_RESTARTS): reruns that started.
  int restarts() const { return m_reruns; }
  // The exit status of the command's last run; none before it ran, while it (or a rerun) runs.
  std::optional<int> command_exit_code() const { return m_command ? m_command->exit_code : std::nullopt; }
  // Why the run is ending, once it is ("" before): /livez says it while stopping.
  const std::string& reason() const { return m_reason; }
  // The child that leads the run now: the command while it runs, else `ray start` (nullopt: none).
  std::optional<Child> main_child() const;
  bool running(Child c) const;

 private:
  std::vector<Effect> on_start();
  std::vector<Effect> on_wait(const WaitFinished& w);
  std::vector<Effect> on_exit(const ChildExited& e);
  std::vector<Effect> on_signal(const SignalReceived& s);
  std::vector<Effect> on_timer(const TimerFired& t);
  std::vector<Effect> on_leftovers(const Leftovers& l);
  std::vector<Effect> on_group_gone(const GroupGone& g);
  std::vector<Effect> on_stragglers(const Stragglers& s);
  std::vector<Effect> on_stop_command(const StopCommand& s);

  // Begin the shutdown: remember how the run ends, stop the command (if any) then Ray.
  void shut_down(std::vector<Effect>& out, int code, std::string reason, std::optional<int> command_signal);
  void stop_ray(std::vector<Effect>& out);
  // RAYLAUNCH_RAY_STOP_GRACE, shorter once the drain has seen the raylet exit (nothing to lose).
  std::chrono::milliseconds ray_stop_grace() const;
  // A wait before anything was started (Redis, the head) ended not ready: exit at once.
  void end_before_start(std::vector<Effect>& out, const WaitFinished& w);
  void start_wait(std::vector<Effect>& out, Wait which);
  void cancel_wait(std::vector<Effect>& out);
  // Worker: SIGTERM while Ray runs: drain the node (Wait::drain), Ray is stopped after.
  void start_drain(std::vector<Effect>& out, int signo);
  // Head: the command exited on its own; whether it runs again (the reason says why not).
  bool restart_after(std::vector<Effect>& out, const ChildExited& e);
  // Head: the command's process ended while it ran, by itself or (`stopped`) stopped by a watch
  // with `e` rewritten to the watch's code: rerun, stay or stop, after what is left of its group.
  void ended_on_its_own(std::vector<Effect>& out, const ChildExited& e, bool stopped);
  void run_command(std::vector<Effect>& out);
  Exit exit_now() const;
  // The command's leader exited and `left` processes remain in its group: they get the stop
  // signal (unless `signalled` already) and the term grace (the rest of it when `grace_running`).
  void command_group_left(std::vector<Effect>& out, int left, bool signalled, bool grace_running);
  // The command and its group are gone: stay (after success, with --on-success stay) or stop Ray.
  void after_command(std::vector<Effect>& out);
  SendSignal to_command(int signo) const;
  // Everything raylaunch started has ended: look for stragglers, then exit.
  void finish(std::vector<Effect>& out);
  // SIGKILL to `which` and its group, and the bound on its going (Timer::killed).
  void kill(std::vector<Effect>& out, Child which);
  // The bound passed and what was SIGKILLed is still there (uninterruptible sleep): go on without it.
  void killed_too_long(std::vector<Effect>& out);
  // The child (or group) the kill bound waits for has gone: the bound is off.
  void killed_gone(std::vector<Effect>& out, Child which);
  // The command's process is gone (exited, or given up on after SIGKILL): the watches stop.
  void command_leader_gone(std::vector<Effect>& out);

  // Everything that belongs to one run of the command, made anew by run_command(): nothing of a
  // run (its group waited for, SIGKILL sent to it, what comes after it) reaches the next one.
  struct CommandRun {
    enum class Then { stop_ray, rerun, stay };  // once its group is gone
    bool leader_running = true;  // its process runs (or replaces raylaunch, --exec)
    bool group_wait = false;     // its leader exited; what is left of its group is waited for
    bool killed = false;         // SIGKILL went to its group
    Then then = Then::stop_ray;
    std::optional<int> exit_code;  // its leader's status, once it exited
    std::optional<StopCommand> stopped_for;  // a watch had it stopped: its run ends with that code
  };
  bool command_running() const { return m_command && m_command->leader_running; }
  bool group_wait() const { return m_command && m_command->group_wait; }

  Settings m_s;
  Phase m_phase = Phase::starting;
  bool m_ray_running = false;
  std::optional<CommandRun> m_command;  // the current (or last) run of the command
  bool m_ray_stop_running = false;
  bool m_wait_running = false;
  Wait m_wait = Wait::head;         // the wait under way (a cancelled one's late answer is ignored)
  int m_nodes_present = 0;          // pods ALIVE when the barrier ended
  RestartBudget m_budget{0, std::chrono::milliseconds(0)};
  int m_reruns = 0;                 // reruns that started
  std::string m_rerun_for;          // the failure a rerun is planned for, until it starts
  bool m_ray_stop_sent = false;   // SIGTERM sent to `ray start`
  bool m_node_gone = false;       // the drain saw this node's raylet exit: nothing of Ray's ran here after
  bool m_leftovers_checked = false;
  bool m_exec_ray_started = false;  // exec mode: `ray start` (no --block) exited 0
  bool m_exec_when_ray_returns = false;  // exec mode: the barrier passed before `ray start` returned
  std::optional<Child> m_killed;    // what Timer::killed waits for
  bool m_stragglers_checked = false;
  bool m_stragglers_signalled = false;
  int m_stop_signal = SIGTERM;      // what ended the run, for the rest of the command's group
  int m_exit_code = 0;
  std::string m_reason;
};

}  // namespace launcher::supervisor
