#include <fcntl.h>
#include <grpc/grpc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <csignal>
#include <cstdlib>

#include "app/commands.hpp"
#include "app/targets.hpp"
#include "app/run_waits.hpp"
#include "app/run_watches.hpp"
#include "gcs/probe.hpp"
#include "health/health_service.hpp"
#include "health/http_server.hpp"
#include "health/probe_cache.hpp"
#include "plan/gcs_store_runs.hpp"
#include "plan/gcs_store_volume.hpp"
#include "plan/plan.hpp"
#include "plan/ray_install.hpp"
#include "supervisor/executable.hpp"
#include "supervisor/supervisor.hpp"
#include "util/fatal.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"
#include "version.hpp"

namespace launcher {

namespace {

using supervisor::SpawnRequest;

// The resident endpoint asks each probe at most once a second, whatever the number of probers.
constexpr std::chrono::milliseconds k_probe_cache_age{1'000};

// A strict check failed: the plan's exit (78), with the failing checks named, nothing started.
void refuse_failed_checks(const Plan& plan) {
  std::vector<std::string> lines;
  for (const Check& c : plan.checks) {
    if (c.status == CheckStatus::fail) {
      lines.push_back("node check " + c.name + " failed: " + util::printable(c.detail) +
                      (c.fix.empty() ? "" : " (fix: " + c.fix + ")"));
    } else if (c.status == CheckStatus::warn) {
      spdlog::warn("node check {}: {}{}", c.name, c.detail, c.fix.empty() ? "" : " (fix: " + c.fix + ")");
    }
  }
  if (plan.exit_code() != exit_code::ok) {
    throw Fatal(plan.exit_code(), lines);
  }
}

// The termination message of a refusal (what `kubectl describe pod` shows): its first line, and
// the others by what failed, so that fixing the first does not meet the second at the next start.
// "node check shm failed: ...; also: node check gpus failed (each in the log)"
std::string termination_line(const std::vector<std::string>& lines) {
  if (lines.empty()) {
    return {};
  }
  std::string line = lines.front();
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string_view other = lines[i];
    line += (i == 1 ? "; also: " : ", ");
    line += other.substr(0, other.find(':'));
  }
  return lines.size() > 1 ? line + " (each in the log)" : line;
}

// `ray`, the command and `ray stop`, found on the PATH the children will have (a venv's bin
// first), before anything starts: a missing `ray` fails at second 0, not after the barrier.
struct Programs {
  SpawnRequest ray;
  SpawnRequest command;
  SpawnRequest ray_stop;
};

// The Redis password goes to the head's `ray start` as an argument (plan/gcs_ft.cpp); no
// other process needs it in its environment: not the command, not a worker's Ray, not `ray stop`.
const std::vector<std::string> k_only_for_ray_start = {"REDIS_PASSWORD"};

Programs resolve_programs(const Plan& plan, const Config& config, const EnvMap& child_env) {
  const std::string path = util::env_value(child_env, "PATH");
  const bool head = plan.identity.role == Role::head;
  Programs p;
  const auto ray = supervisor::resolve_executable(plan.ray_start.front(), path);
  if (!ray) {
    throw Fatal(exit_code::unavailable, "the ray CLI (" + config.source_of(&Config::ray) + "): " + ray.error().message);
  }
  if (const auto bad = supervisor::check_interpreter(ray.value())) {
    throw Fatal(exit_code::unavailable, "the ray CLI (" + config.source_of(&Config::ray) + "): " + bad->message);
  }
  p.ray = {ray.value(), plan.ray_start, true, head ? std::vector<std::string>{} : k_only_for_ray_start};
  const int stop_grace_s = static_cast<int>(std::max<std::int64_t>(1, config.ray_stop_grace.count() / 2000));
  p.ray_stop = {ray.value(), {plan.ray_start.front(), "stop", "--grace-period=" + std::to_string(stop_grace_s)}, true,
                k_only_for_ray_start};
  if (head) {
    if (plan.command.empty()) {
      throw Fatal(exit_code::usage, "no launch command: the head runs it once every node has joined (expected "
                                    "`raylaunch run -- COMMAND [ARGS...]`)");
    }
    const auto command = supervisor::resolve_executable(plan.command.front(), path);
    if (!command) {
      throw Fatal(command.error().code, "the launch command: " + command.error().message);
    }
    if (const auto bad = supervisor::check_interpreter(command.value())) {
      throw Fatal(bad->code, "the launch command: " + bad->message);
    }
    p.command = {command.value(), plan.command, false, k_only_for_ray_start};
  } else if (!plan.command.empty()) {
    spdlog::info("the launch command runs on the head only; this worker runs Ray");
  }
  return p;
}

// Process-level changes the plan decided, before anything is spawned: children inherit them.
// (The Redis preflight is a wait: the supervisor runs it, see RunWaits.)
void apply_actions(const Plan& plan) {
  for (const Action& action : plan.actions) {
    const auto* raise = std::get_if<RaiseLimit>(&action);
    if (raise == nullptr) {
      continue;
    }
    const std::string err = util::set_soft_limit(raise->resource, raise->soft);
    if (err.empty()) {
      spdlog::info("{}", describe(action));
    } else {
      spdlog::warn("could not {}: {}", describe(action), err);
    }
  }
}

// The head's GCS store on a volume (plan/gcs_store_volume.hpp): checked, claimed and locked
// before anything starts (78 on a refusal). The lock lives as long as the returned descriptor:
// PID 1's life, or, with --exec, the command's, which inherits it.
util::Fd hold_gcs_store(const Plan& plan, const Config& config) {
  for (const Action& action : plan.actions) {
    if (const auto* store = std::get_if<PrepareGcsStore>(&action)) {
      util::Fd lock = prepare_gcs_store(*store);
      if (config.exec) {
        ::fcntl(lock.get(), F_SETFD, 0);
      }
      return lock;
    }
  }
  return {};
}

// The head on a GCS store counts the command's starts there (plan/gcs_store_runs.hpp), so that a
// container the kubelet restarts gives its command RAYLAUNCH_RESTART_COUNT from where the last
// one left it. A record that cannot be read or written is a warning: the run goes on, counting
// from what it has.
void count_runs_on_store(const Plan& plan, supervisor::RunSpec& spec) {
  for (const Action& action : plan.actions) {
    const auto* store = std::get_if<PrepareGcsStore>(&action);
    if (store == nullptr || !spec.settings.head) {
      continue;
    }
    const RecordedRuns recorded = read_command_runs(store->path);
    if (!recorded.problem.empty()) {
      spdlog::warn("GCS store: {}/{} {}: counting the command's starts from 0", store->path, k_store_runs_file,
                   recorded.problem);
    } else if (recorded.runs > 0) {
      spdlog::info("GCS store: the command started {} on this cluster before: RAYLAUNCH_RESTART_COUNT goes on from {}",
                   util::plural(recorded.runs, "time"), recorded.runs);
    }
    spec.settings.earlier_runs = recorded.runs;
    spec.settings.record_runs = true;
    spec.record_run = [path = store->path](int runs) {
      if (const std::string err = record_command_runs(path, runs); !err.empty()) {
        spdlog::warn("GCS store: cannot record the command's start in {}/{} ({}): a restarted container counts "
                     "from the last record",
                     path, k_store_runs_file, err);
      }
    };
    return;
  }
}

// The plan's environment, applied to raylaunch itself: `ray start` and every process Ray
// spawns inherit it, and never see a later change (ray-gcs-wire.md §5).
void apply_environment(const Plan& plan) {
  for (const EnvVar& var : plan.env) {
    ::setenv(var.name.c_str(), var.value.c_str(), 1);
  }
}

// The head of a GCS fault-tolerant cluster waits for Redis before `ray start`.
bool waits_for_redis(const Plan& plan) {
  return std::any_of(plan.actions.begin(), plan.actions.end(),
                     [](const Action& a) { return std::holds_alternative<WaitForRedis>(a); });
}

supervisor::Settings lifecycle_settings(const Plan& plan, const Config& config, const WatchSettings& watches) {
  supervisor::Settings s;
  s.head = plan.identity.role == Role::head;
  s.preflight = waits_for_redis(plan);
  s.exec = config.exec && s.head;
  s.on_success = config.on_success;
  s.command_signals = config.forward_signals == ForwardSignals::leader ? supervisor::CommandSignals::leader
                                                                       : supervisor::CommandSignals::group;
  s.term_grace = config.term_grace;
  s.ray_stop_grace = config.ray_stop_grace;
  // The worker's part of the gang fabric check runs on the watch's thread, before the watch.
  s.watch_head = !s.head && (config.head_watch.count() > 0 || plan.fabric_check.has_value());
  s.drain = !s.head;
  s.restarts = s.head ? config.restarts : 0;
  s.restart_window = config.restart_window;
  s.watch_command = s.head && !s.exec && watches.any();
  return s;
}

// A worker compares its image's Ray and Python with its head's before `ray start` (a node
// check: none with --checks off). Read from the files of the `ray` that will run.
VersionPolicy version_policy(const Plan& plan, const Config& config, const Programs& programs, const EnvMap& env) {
  VersionPolicy policy;
  if (plan.identity.role == Role::head || config.checks == ChecksPolicy::off) {
    return policy;
  }
  policy.mine = read_installed_ray(supervisor::shebang_interpreter(programs.ray.exe).value_or(""));
  policy.python_match_level = util::env_value(env, "RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL");
  return policy;
}

int supervise(const Plan& plan, const Config& config, Programs programs, const gcs::Credentials& credentials,
              std::shared_ptr<const redis::TlsClient> redis_tls, VersionPolicy versions, WatchSettings watching) {
  // gRPC is initialised for the life of the process and never shut down: the last channel's
  // destructor would run grpc_shutdown, which waits for gRPC's own threads, and at a pod's pids
  // limit it waits for ever for threads it cannot make. PID 1 exits with its code instead (the
  // kernel reclaims what gRPC holds; nothing of it needs saving).
  grpc_init();
  boost::asio::io_context io;
  supervisor::RunState state;
  state.head = plan.identity.role == Role::head;
  state.nodes_wanted = plan.identity.nodes;

  // The watches of the command's runs (head): EFA counters and NCCL's RAS, on a thread of their own.
  watch::WatchBoard board;
  watching.gcs = std::string(platform::k_loopback) + ":" + std::to_string(plan.identity.ray_port);
  watching.credentials = credentials;
  RunWatches watches(watching, board);

  // The resident health endpoint, on the same loop (its probe RPCs on a thread of their own).
  gcs::Prober prober(probe_target(plan.identity, config), credentials);
  std::unique_ptr<health::ProbeCache> probes;
  std::unique_ptr<health::HealthService> service;
  std::unique_ptr<health::HttpServer> server;
  if (config.health_port > 0) {
    probes = std::make_unique<health::ProbeCache>(
        io,
        [&prober](ProbeKind kind) { return prober.probe(kind); },
        k_probe_cache_age);
    service = std::make_unique<health::HealthService>(state, *probes, k_version, &board);
    try {
      server = std::make_unique<health::HttpServer>(
          io, config.health_port, [&service](const std::string& m, const std::string& p, health::Respond r) {
            service->handle(m, p, std::move(r));
          });
    } catch (const std::exception& e) {
      throw Fatal(exit_code::unavailable, config.source_of(&Config::health_port) + " " +
                                              std::to_string(config.health_port) +
                                              ": cannot serve the health endpoint: " + e.what());
    }
    spdlog::info("health endpoint on :{} (/livez, /readyz, /metrics)", config.health_port);
  }

  supervisor::RunSpec spec;
  spec.settings = lifecycle_settings(plan, config, watching);
  count_runs_on_store(plan, spec);
  spec.start_watches = [&watches](std::function<void(supervisor::StopCommand)> stop) { watches.start(std::move(stop)); };
  spec.stop_watches = [&watches] { watches.stop(); };
  spec.ray = std::move(programs.ray);
  spec.command = std::move(programs.command);
  spec.ray_stop = std::move(programs.ray_stop);
  spec.termination_log = config.termination_log;
  RunWaits waits(plan, config, credentials, std::move(redis_tls), state, std::move(versions));
  spec.wait = [&waits](supervisor::Wait which, std::stop_token stop) { return waits(which, stop); };
  supervisor::Supervisor sup(io, std::move(spec), state);
  return sup.run();
}

}  // namespace

// `run`: the container command of every pod. Plans exactly what `plan` prints, refuses what
// cannot work before anything starts (64, 69, 78, 126, 127), then supervises Ray and the
// launch command as PID 1 (supervisor/supervisor.hpp) and exits with the run's outcome.
int cmd_run(const Invocation& inv) {
  const Config& config = inv.config;
  try {
    const PodFacts facts = gather_pod_facts(config, inv.env);
    const Plan plan = make_plan(config, facts, inv.command);                         // 64 on bad settings
    spdlog::info("raylaunch {} run: {} is the {} (ordinal {} of {}); head {}", k_version, plan.identity.hostname,
                 to_string(plan.identity.role), plan.identity.ordinal, plan.identity.nodes,
                 plan.identity.head_address());
    refuse_failed_checks(plan);                                                      // 78 under checks=strict
    const Programs programs = resolve_programs(plan, config, plan.child_env(inv.env));  // 69, 64, 126, 127
    const gcs::Credentials credentials = credentials_or_fatal(config, inv.env);     // 64: token, TLS files
    auto redis_tls = waits_for_redis(plan) ? redis_tls_or_fatal(config) : nullptr;  // 64: Redis TLS files
    const util::Fd store_lock = hold_gcs_store(plan, config);                      // 78: the store's volume
    apply_actions(plan);                                                             // setrlimit
    apply_environment(plan);                                                         // inherited by everything
    VersionPolicy versions = version_policy(plan, config, programs, inv.env);
    spdlog::info("ray start: {}", display_argv(plan.ray_start));
    WatchSettings watches = watch_settings(config, facts.node.efa_devices, plan.child_env(inv.env));
    return supervise(plan, config, programs, credentials, std::move(redis_tls), std::move(versions), std::move(watches));
  } catch (const Fatal& e) {
    // Nothing was started: the kubelet still gets the reason as the termination message.
    supervisor::write_termination_message(config.termination_log, termination_line(e.lines()));
    throw;
  }
}

}  // namespace launcher
