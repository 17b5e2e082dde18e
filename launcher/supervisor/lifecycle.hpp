#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/config.hpp"
#include "util/paced_wait.hpp"

namespace launcher::supervisor {

// The processes `run` owns. `ray` is `ray start` (with --block: its foreground process, which
// stops every Ray process it started when it gets SIGTERM); `ray_stop` is the fallback
// `ray stop`, run only when Ray processes outlive `ray start`.
enum class Child { ray, command, ray_stop };
// The blocking waits, run off the event loop: the Redis preflight (head, with GCS fault
// tolerance), the head's own GCS, the join barrier, a worker's wait for its head, and a
// worker's look at its head after Ray exited (for the reason line).
enum class Wait { preflight, local_gcs, join, head, diagnose };
enum class Timer { term_grace, ray_stop_grace };

enum class Phase {
  starting,         // nothing started yet
  preflight,        // head: waiting for Redis
  waiting_head,     // worker: waiting for the head's GCS
  starting_ray,     // head: `ray start` spawned, waiting for its GCS
  joining,          // head: the join barrier
  running_command,  // head: the launch command runs
  running_ray,      // worker: `ray start --block` runs
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
  std::chrono::milliseconds term_grace{30'000};
  std::chrono::milliseconds ray_stop_grace{15'000};
};

// Events the supervisor feeds in.
struct Start {};
struct WaitFinished {
  Wait which = Wait::head;
  util::WaitEnd end = util::WaitEnd::ready;
  std::string reason;  // one line when not ready (or, for `diagnose`, what the check found)
};
struct ChildExited {
  Child which = Child::ray;
  int code = 0;                 // exit code, or 128 + signal
  std::string how;              // "exited with 3", "killed by SIGKILL"
  std::chrono::milliseconds ran{0};
  std::string detail;           // e.g. Ray's last output lines, or why exec failed
};
struct SignalReceived {
  int signo = 0;
};
struct TimerFired {
  Timer which = Timer::term_grace;
};
// The answer to CheckLeftovers: how many processes (reparented orphans of Ray) are still there.
struct Leftovers {
  int count = 0;
};
using Event = std::variant<Start, WaitFinished, ChildExited, SignalReceived, TimerFired, Leftovers>;

// Effects the supervisor carries out, in order.
struct StartWait {
  Wait which = Wait::head;
};
struct CancelWait {};
struct Spawn {
  Child which = Child::ray;
};
struct ExecCommand {};
struct SendSignal {
  Child which = Child::ray;
  int signo = 0;
};
struct KillGroup {  // SIGKILL to the child's process group: nothing of it is left behind
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
struct Log {
  enum class Level { info, warn, error } level = Level::info;
  std::string text;
};
struct Exit {
  int code = 0;
  std::string reason;  // the termination message: one line
};
using Effect = std::variant<StartWait, CancelWait, Spawn, ExecCommand, SendSignal, KillGroup, StartTimer, CancelTimer,
                            CheckLeftovers, Log, Exit>;

// What `run` does, as a state machine with no processes, clocks or sockets in it: events in,
// effects out. Unit-tested on its own (tests/unit/test_supervisor_lifecycle.cpp); the
// supervisor only carries the effects out.
//
// Head: [preflight] → ray start → its GCS answers → join barrier → command → stop Ray → exit
// with the command's status (or stay, on success, until SIGTERM). Worker: wait for the head →
// ray start --block → supervise it; when it exits, exit 69 with the reason.
// SIGTERM and SIGINT end the run: forwarded to the command (to `ray start` before it runs),
// SIGKILL to the command's group after the term grace, then Ray is stopped; exit 128+N (0 when
// staying after success). SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 are forwarded only.
class Lifecycle {
 public:
  explicit Lifecycle(Settings settings) : m_s(settings) {}

  std::vector<Effect> on(const Event& event);

  Phase phase() const { return m_phase; }
  // Why the run is ending, once it is ("" before): /livez says it while stopping.
  const std::string& reason() const { return m_reason; }
  // Which child the forwarded signals go to now (nullopt: none runs).
  std::optional<Child> main_child() const;
  bool running(Child c) const;

 private:
  std::vector<Effect> on_start();
  std::vector<Effect> on_wait(const WaitFinished& w);
  std::vector<Effect> on_exit(const ChildExited& e);
  std::vector<Effect> on_signal(const SignalReceived& s);
  std::vector<Effect> on_timer(const TimerFired& t);
  std::vector<Effect> on_leftovers(const Leftovers& l);

  // Begin the shutdown: remember how the run ends, stop the command (if any) then Ray.
  void shut_down(std::vector<Effect>& out, int code, std::string reason, std::optional<int> command_signal);
  void stop_ray(std::vector<Effect>& out);
  // A wait before anything was started (Redis, the head) ended not ready: exit at once.
  void end_before_start(std::vector<Effect>& out, const WaitFinished& w);
  void finish(std::vector<Effect>& out);

  Settings m_s;
  Phase m_phase = Phase::starting;
  bool m_ray_running = false;
  bool m_command_running = false;
  bool m_ray_stop_running = false;
  bool m_wait_running = false;
  bool m_ray_stop_sent = false;   // SIGTERM sent to `ray start`
  bool m_leftovers_checked = false;
  bool m_exec_ray_started = false;  // exec mode: `ray start` (no --block) exited 0
  int m_exit_code = 0;
  std::string m_reason;
};

}  // namespace launcher::supervisor
