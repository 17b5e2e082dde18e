#include "gcs/waits.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gcs/gcs_client.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// Names are asked for at least this often while light polls run: they are what the log shows.
constexpr std::chrono::milliseconds k_names_every{10'000};

// How far ahead of the deadline a light answer counts as the last one, beyond the pause that
// follows it: the scheduling jitter between this estimate and paced_wait's own.
constexpr std::chrono::milliseconds k_last_poll_margin{100};

// "3/4 nodes alive; missing: training-2"; from a light count, the names of the last full poll.
std::string progress(const JoinResult& r, int wanted) {
  if (r.last_named && r.last_named->distinct_alive() != r.last_count.distinct_alive()) {
    return progress_line(r.last_count, wanted) + " (node addresses); at the last full poll " +
           progress_line(*r.last_named, wanted);
  }
  return progress_line(r.last_named ? *r.last_named : r.last_count, wanted);
}

std::string final_reason(const NodeSource& source, const JoinOptions& options, const JoinResult& r) {
  const std::string waited = util::format_duration(options.wait.timeout);
  const std::string error = r.last_error ? r.last_error->describe() : std::string("no answer");
  switch (r.end) {
    case util::WaitEnd::ready:
      return "";
    case util::WaitEnd::stopped:
      return "join barrier stopped after " + util::format_duration(r.elapsed) + ": " +
             (r.answered ? progress(r, options.nodes) : std::string("the GCS never answered"));
    case util::WaitEnd::refused:
      return source.describe() + " rejected the request: " + error;
    case util::WaitEnd::unreachable:
      return source.describe() + " unreachable at the " + waited + " deadline: " + error +
             (r.answered ? " (last answer: " + progress(r, options.nodes) + ")" : " (it never answered)");
    case util::WaitEnd::not_ready:
      break;
  }
  return "join timed out after " + waited + ": " + progress(r, options.nodes);
}

// The quorum's grace starts when a table with names first shows `min_nodes` pods, and starts over
// when one shows fewer. Never from a light table: it counts by IP, so a restarted pod's stale row
// (its old IP) passes for a pod, and the grace would run out before the quorum is really there.
void track_quorum(const JoinOptions& options, const AliveCount& named, util::Clock::TimePoint now,
                  std::optional<util::Clock::TimePoint>& since) {
  if (options.min_nodes <= 0) {
    return;
  }
  if (named.distinct_alive() < options.min_nodes) {
    since.reset();
  } else if (!since) {
    since = now;
    spdlog::info("{}/{} nodes alive: a quorum (--min-nodes {}); starting with those present in {} unless all join "
                 "sooner", named.distinct_alive(), options.nodes, options.min_nodes,
                 util::format_duration(options.quorum_grace));
  }
}

// "4/4 nodes alive after 4.1s (16 polls); counted once despite …", with the quorum's story.
void log_joined(const JoinOptions& options, const JoinResult& r, std::chrono::milliseconds quorum_for) {
  const std::string line = progress_line(r.last_count, options.nodes);
  const auto notes = line.find(';');
  std::string quorum;
  if (r.quorum_cut_short) {
    quorum = fmt::format(": a quorum (--min-nodes {}) at the {} join timeout, its {} grace cut short after {}; the "
                         "others join Ray when they come",
                         options.min_nodes, util::format_duration(options.wait.timeout),
                         util::format_duration(options.quorum_grace), util::format_elapsed(quorum_for));
  } else if (r.quorum) {
    quorum = fmt::format(": a quorum (--min-nodes {}) after its {} grace; the others join Ray when they come",
                         options.min_nodes, util::format_duration(options.quorum_grace));
  }
  spdlog::info("{} after {:.1f}s ({}){}{}", line.substr(0, notes), static_cast<double>(r.elapsed.count()) / 1000.0,
               util::plural(r.polls, "poll"), quorum, notes == std::string::npos ? std::string() : line.substr(notes));
}

// The table without the waiting pod's rows from before its `ray start` (JoinOptions::own_name).
// Only tables with names: a light row has no name, and the light count never decides alone.
void drop_own_stale_rows(const JoinOptions& options, NodeTable& table) {
  if (options.own_name.empty() || options.own_not_before_ms == 0 || !table.has_names) {
    return;
  }
  std::erase_if(table.nodes, [&](const NodeEntry& e) {
    return e.alive && e.node_name == options.own_name && e.started_before(options.own_not_before_ms);
  });
}

}  // namespace

JoinResult wait_for_nodes(NodeSource& source, const JoinOptions& options, util::Clock& clock, std::stop_token stop) {
  using Kind = util::Attempt::Kind;
  JoinResult result;
  const util::Clock::TimePoint deadline = clock.now() + options.wait.timeout;
  std::optional<util::Clock::TimePoint> named_at;
  std::optional<util::Clock::TimePoint> quorum_since;  // when min_nodes were first ALIVE (again)
  bool last_named = false;  // result.last_count came from a table with names
  // A light count a full poll contradicted: not re-checked while it stands and the named count
  // it got cannot decide anything.
  struct Refuted {
    int light = -1;
    int named = 0;
  } refuted;
  // How many pods end the wait now: all of them, or the quorum once its grace has passed.
  auto wanted = [&]() {
    const bool due = options.min_nodes > 0 && quorum_since && clock.now() - *quorum_since >= options.quorum_grace;
    return due ? options.min_nodes : options.nodes;
  };
  spdlog::info("waiting for {} nodes at {} (timeout {})", options.nodes, source.describe(),
               util::format_duration(options.wait.timeout));
  // A failed poll: stop on what cannot heal, else retry on a fresh channel.
  auto failed = [&](const RpcError& e) -> util::Attempt {
    result.last_error = e;
    if (e.permanent()) {
      return {Kind::refused, e.describe()};
    }
    // A transport failure may have left the channel in gRPC's own backoff, or bound to an
    // address the name no longer has (a restarted head pod): start afresh next time.
    if (e.grpc_code != 0) {
      source.reset();
    }
    return {Kind::failed, "not answering: " + e.describe()};
  };
  const util::WaitReport report = util::paced_wait(
      source.describe(), options.wait, clock, stop,
      [&](std::chrono::milliseconds timeout, std::stop_token s) -> util::Attempt {
        const util::Clock::TimePoint began = clock.now();
        const bool names_due = !named_at || clock.now() - *named_at >= k_names_every;
        auto reply = names_due ? source.poll(timeout, s) : source.poll_light(timeout, s);
        if (!reply) {
          return failed(reply.error());
        }
        drop_own_stale_rows(options, reply.value());
        AliveCount count = count_alive(reply.value(), options.expected_names);
        if (!reply.value().has_names) {
          ++result.light_polls;
          // The count that would decide: all wanted; or a quorum, when it would start its grace,
          // or on the last answer before the join timeout (no poll comes after it), where the
          // deadline then finds it by name.
          const bool last_before_deadline =
              util::ms_between(clock.now(), deadline) <=
              util::pause_after_answer(options.wait, util::ms_between(began, clock.now())) + k_last_poll_margin;
          const bool quorum_decides = options.min_nodes > 0 && (!quorum_since || last_before_deadline);
          const int decisive = quorum_decides ? options.min_nodes : wanted();
          const bool known_short = count.distinct_alive() == refuted.light && refuted.named < decisive;
          if (count.distinct_alive() >= decisive && !known_short) {
            auto full = source.poll(timeout, s);
            if (!full) {
              return failed(full.error());
            }
            drop_own_stale_rows(options, full.value());
            const AliveCount confirmed = count_alive(full.value(), options.expected_names);
            refuted = Refuted{};
            if (confirmed.distinct_alive() < decisive) {
              refuted = Refuted{count.distinct_alive(), confirmed.distinct_alive()};
            }
            reply = std::move(full);
            count = confirmed;
          }
        }
        last_named = reply.value().has_names;
        if (last_named) {
          named_at = clock.now();
          result.last_named = count;
          track_quorum(options, count, clock.now(), quorum_since);
        }
        result.answered = true;
        result.last_error.reset();
        result.last_count = std::move(count);
        if (options.on_answer) {
          options.on_answer(result.last_count);
        }
        const int present = result.last_count.distinct_alive();
        const bool joined = last_named && present >= wanted();
        result.quorum = joined && present < options.nodes;
        // The line of the last full poll, names included, while a light count agrees with it: a
        // line that lost its names at each light poll would be logged twice every 10 s.
        return {joined ? Kind::done : Kind::waiting, progress(result, options.nodes)};
      });
  result.end = report.end;
  result.polls = report.attempts;
  result.elapsed = report.elapsed;
  // The join timeout, with a quorum present by name at the last answer: it starts the command
  // now, the rest of its grace given up (docs/run.md, "A quorum barrier").
  if (result.end == util::WaitEnd::not_ready && options.min_nodes > 0 && last_named &&
      result.last_count.distinct_alive() >= options.min_nodes) {
    result.end = util::WaitEnd::ready;
    result.quorum = true;
    result.quorum_cut_short = true;
  }
  if (result.end == util::WaitEnd::ready) {
    const auto quorum_for = quorum_since ? util::ms_between(*quorum_since, clock.now()) : std::chrono::milliseconds(0);
    log_joined(options, result, quorum_for);
  }
  result.reason = final_reason(source, options, result);
  return result;
}

GcsNodeSource::GcsNodeSource(std::string target, Credentials credentials)
    : m_client(std::move(target), std::move(credentials)) {}

util::Result<NodeTable, RpcError> GcsNodeSource::poll(std::chrono::milliseconds timeout, std::stop_token stop) {
  return m_client.get_all_node_info(timeout, std::move(stop));
}

util::Result<NodeTable, RpcError> GcsNodeSource::poll_light(std::chrono::milliseconds timeout, std::stop_token stop) {
  if (!m_client.light_unsupported()) {
    auto light = m_client.get_alive_node_addresses(timeout, stop);
    if (light || !light.error().unimplemented()) {
      return light;
    }
    if (!m_said_fallback) {
      m_said_fallback = true;
      spdlog::debug("{} has no GetAllNodeAddressAndLiveness (Ray < 2.51): polling GetAllNodeInfo", describe());
    }
  }
  return m_client.get_all_node_info(timeout, std::move(stop));
}

net::StagedCheck head_gcs_check(const net::HostPort& head, Credentials credentials) {
  return net::StagedCheck(
      head, "GCS",
      [credentials = std::move(credentials)](const net::HostPort& target, const std::string& /*ip*/,
                                             std::chrono::milliseconds timeout, std::stop_token stop) {
        // A fresh client per attempt, dialled by name (the name TLS verifies):
        // the connection is torn down anyway while the head is not ready, and
        // the name may now point at a new pod IP.
        GcsClient client(target.text(), credentials);
        const auto version = client.check_alive(timeout, std::move(stop));
        if (version) {
          return net::ProtocolAnswer{net::ProtocolAnswer::Kind::ready, version.value()};
        }
        if (version.error().permanent()) {
          return net::ProtocolAnswer{net::ProtocolAnswer::Kind::refused,
                                     "rejected the request: " + version.error().describe()};
        }
        return net::ProtocolAnswer{net::ProtocolAnswer::Kind::failed, version.error().describe()};
      });
}

HeadWaitResult wait_for_head(const std::string& what, const net::AttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop) {
  spdlog::info("waiting for the {} (timeout {})", what, util::format_duration(options.timeout));
  HeadWaitResult result = net::wait_staged(what, attempt, options, clock, std::move(stop));
  if (result.end == util::WaitEnd::ready) {
    spdlog::info("{} answered (Ray {}) after {} ms, {}", what, result.answer, result.elapsed.count(),
                 util::plural(result.attempts, "attempt"));
  }
  return result;
}

}  // namespace launcher::gcs
