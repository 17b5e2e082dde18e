#include "app/run_watches.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "config/setting_parsers.hpp"
#include "gcs/gcs_client.hpp"
#include "util/clock.hpp"
#include "util/exit_codes.hpp"
#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"
#include "watch/collective_watch.hpp"
#include "watch/efa_counters.hpp"
#include "watch/efa_watch.hpp"
#include "watch/nccl_ras_client.hpp"
#include "watch/nccl_ras_status.hpp"

namespace launcher {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// The EFA counters are read a few times per --efa-idle-after (a p5's 32 devices × 4 files cost
// about a millisecond: benchmarks/results/fabric-watch.md), at most every 10 s.
milliseconds efa_period(milliseconds idle_after) { return std::clamp(idle_after / 4, milliseconds(100), milliseconds(10'000)); }

// One RAS poll ends within this, and within its interval when that is longer than 2 s: NCCL
// gathers the job's state with a 5 s leg timeout, plus 5 s (RAS_COLLECTIVE_LEG_TIMEOUT_SEC and
// RAS_COLLECTIVE_EXTRA_TIMEOUT_SEC, src/ras/ras_internal.h, v2.30.4), as its own client waits.
milliseconds ras_deadline(milliseconds interval) { return std::clamp(interval, milliseconds(2'000), milliseconds(15'000)); }

// The pods of the nodes RAS names by IP, from the head's node table: asked only when a stuck
// communicator is described, at most once per `k_max_age`.
class PodNames {
 public:
  PodNames(std::string gcs, gcs::Credentials credentials) : m_gcs(std::move(gcs)), m_credentials(std::move(credentials)) {}

  std::string of(const std::string& ip, std::stop_token stop) {
    if (m_gcs.empty()) {
      return {};
    }
    if (!m_fetched || Clock::now() - *m_fetched > k_max_age) {
      m_fetched = Clock::now();
      if (!m_client) {
        m_client = std::make_unique<gcs::GcsClient>(m_gcs, m_credentials);
      }
      const auto table = m_client->get_all_node_info(milliseconds(2'000), stop);
      if (table) {
        m_names.clear();
        for (const gcs::NodeEntry& n : table->nodes) {
          if (n.alive && !n.node_name.empty()) {
            m_names[n.address] = n.node_name;
          }
        }
      }
    }
    const auto it = m_names.find(ip);
    return it == m_names.end() ? std::string() : it->second;
  }

 private:
  static constexpr std::chrono::seconds k_max_age{30};
  std::string m_gcs;
  gcs::Credentials m_credentials;
  std::unique_ptr<gcs::GcsClient> m_client;
  std::optional<Clock::time_point> m_fetched;
  std::map<std::string, std::string> m_names;
};

void log_lines(const std::string& warn, const std::string& info) {
  if (!warn.empty()) {
    spdlog::warn("{}", warn);
  }
  if (!info.empty()) {
    spdlog::info("{}", info);
  }
}

}  // namespace

WatchSettings watch_settings(const Config& config, const std::vector<std::string>& efa_devices, const EnvMap& env) {
  WatchSettings s;
  s.efa_devices = efa_devices;
  s.host_root = config.host_root;
  s.efa_idle_after = config.efa_idle_after;
  s.efa_readyz = config.efa_idle_readyz;
  s.efa = config.efa_watch == WatchMode::on || (config.efa_watch == WatchMode::automatic && !efa_devices.empty());
  if (config.efa_watch == WatchMode::on && efa_devices.empty()) {
    spdlog::warn("--efa-watch on, but the pod has no EFA devices: the EFA watch will say it cannot read counters");
  }
  s.ras = config.nccl_ras != WatchMode::off;
  s.ras_loud = config.nccl_ras == WatchMode::on;
  s.ras_interval = config.nccl_ras_interval;
  s.ras_polls = config.nccl_ras_polls;
  s.on_stuck = config.nccl_ras_on_stuck;
  if (config.nccl_ras_address) {
    s.ras_address = *config.nccl_ras_address;
  } else if (const std::string addr = util::env_value(env, platform::k_nccl_ras_addr_env); !addr.empty()) {
    std::optional<net::HostPort> parsed;
    if (setting_parsers::nccl_ras_address(addr, parsed).empty()) {
      s.ras_address = *parsed;
    } else if (s.ras) {
      spdlog::warn("NCCL_RAS_ADDR={} is not an IP:port raylaunch can dial without DNS: the RAS watch is off (set "
                   "RAYLAUNCH_NCCL_RAS_ADDRESS)",
                   util::printable(addr, 80));
      s.ras = false;
    }
  } else {
    s.ras_address = {platform::k_loopback, platform::k_nccl_ras_port};
  }
  return s;
}

RunWatches::RunWatches(WatchSettings settings, watch::WatchBoard& board)
    : m_settings(std::move(settings)), m_board(board) {
  m_board.update([this](watch::WatchSnapshot& s) {
    s.efa_enabled = m_settings.efa;
    s.efa_readyz = m_settings.efa_readyz;
    s.ras_enabled = m_settings.ras;
  });
}

RunWatches::~RunWatches() { stop(); }

void RunWatches::start(std::function<void(supervisor::StopCommand)> stop_command) {
  stop();
  try {
    m_thread = std::jthread([this, stop_command = std::move(stop_command)](std::stop_token stop) {
      try {
        run(std::move(stop), stop_command);
      } catch (const std::exception& e) {
        spdlog::error("the watches stopped: internal error: {} (please report it); the command runs on unwatched", e.what());
      }
    });
  } catch (const std::exception& e) {
    // No thread (a pids limit): the command runs unwatched, as without the watches.
    spdlog::error("could not start a thread for the watches: {} (the pod's pids limit?); the command runs unwatched",
                  e.what());
  }
}

void RunWatches::stop() {
  if (m_thread.joinable()) {
    m_thread.request_stop();
    m_thread.join();
  }
}

void RunWatches::run(std::stop_token stop, std::function<void(supervisor::StopCommand)> stop_command) {
  const WatchSettings& s = m_settings;
  util::SteadyClock clock;
  const util::HostFs fs(s.host_root);
  const auto started = Clock::now();
  watch::EfaWatch efa(s.efa_idle_after);
  PodNames pods(s.gcs, s.credentials);
  watch::CollectiveWatch collectives(s.ras_polls, [&pods, &stop](const std::string& ip) { return pods.of(ip, stop); });
  auto next_efa = started;
  auto next_ras = started + s.ras_interval;
  bool ras_said = false;     // the last failure was said; said again only after an answer
  bool ras_answered = false;
  bool stopping = false;     // the command was asked to stop: nothing more to do for this run
  while (!stop.stop_requested() && !stopping) {
    const auto now = Clock::now();
    if (s.efa && now >= next_efa) {
      const auto verdict = efa.add(watch::read_efa_counters(fs, s.efa_devices), util::ms_between(started, now));
      log_lines(verdict.warn, verdict.info);
      m_board.update([&](watch::WatchSnapshot& b) {
        b.efa_state = verdict.state;
        b.efa_devices = verdict.rates;
        if (verdict.state != watch::EfaState::flat) {
          b.efa_line.clear();
        } else if (!verdict.warn.empty()) {
          b.efa_line = verdict.warn;  // said once per episode; /readyz keeps showing it
        }
      });
      next_efa = now + efa_period(s.efa_idle_after);
    }
    if (s.ras && now >= next_ras) {
      const auto polled = watch::query_ras_status(s.ras_address, {ras_deadline(s.ras_interval)}, stop);
      if (stop.stop_requested()) {
        break;
      }
      const auto status = polled ? watch::parse_ras_status(*polled)
                                 : util::Result<watch::RasStatus>::failure(polled.error());
      const double seconds = std::chrono::duration<double>(Clock::now() - now).count();
      if (!status) {
        // Nothing listening is what a command without NCCL (or before its first communicator)
        // looks like: quiet under auto; an answer that is not RAS's is always worth a line.
        const bool refused = !polled && status.error().find("cannot connect") != std::string::npos;
        if (!ras_said && (s.ras_loud || ras_answered || !refused)) {
          spdlog::warn("the NCCL RAS watch: {}", status.error());
        } else {
          spdlog::debug("the NCCL RAS watch: {}", status.error());
        }
        ras_said = ras_said || s.ras_loud || ras_answered || !refused;
        m_board.update([&](watch::WatchSnapshot& b) {
          b.ras_up = false;
          ++b.ras_polls_failed;
          b.ras_poll_seconds = seconds;
        });
      } else {
        ras_said = false;
        ras_answered = true;
        const watch::CollectiveVerdict verdict = collectives.add(*status);
        log_lines(verdict.stuck_line, verdict.info);
        if (!verdict.stuck_line.empty() && s.on_stuck == OnStuck::stop) {
          stop_command(supervisor::StopCommand{verdict.stuck_line, exit_code::stuck});
          stopping = true;
        }
        m_board.update([&](watch::WatchSnapshot& b) {
          b.ras_up = true;
          b.ras_format = status->format == watch::RasFormat::json ? "json" : "text";
          ++b.ras_polls_ok;
          b.ras_poll_seconds = seconds;
          b.communicators = verdict.communicators;
          b.communicators_waiting = verdict.waiting;
          b.communicators_stuck = verdict.stuck;
          b.stuck_total += verdict.stuck_line.empty() ? 0 : 1;
          b.commands_stopped += stopping ? 1 : 0;
        });
      }
      next_ras = Clock::now() + s.ras_interval;
    }
    const auto wake = std::min(s.efa ? next_efa : Clock::time_point::max(), s.ras ? next_ras : Clock::time_point::max());
    if (wake == Clock::time_point::max()) {
      return;
    }
    clock.sleep_for(util::ms_between(Clock::now(), wake), stop);
  }
}

}  // namespace launcher
