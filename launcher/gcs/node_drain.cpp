#include "gcs/node_drain.hpp"

#include <grpcpp/support/status_code_enum.h>
#include <spdlog/spdlog.h>

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// Past the deadline before Ray is stopped, so that the raylet (same pod, same wall clock) sees
// deadline_timestamp_ms < now when it gets SIGTERM.
constexpr std::chrono::milliseconds k_past_deadline{250};
// Looks that found the head unreachable (UNAVAILABLE) before it counts as gone: the second is on a
// new connection, so a connection dropped once is not a head gone (a deleted head's pod refuses
// connections at once: `kubectl delete` of the StatefulSet stops the head first).
constexpr int k_unreachable_looks = 2;

// One look at the node's row, in the layout of the GCS's version, which a channel that has not
// learnt it (the head watch's was reset, or the node came from it) asks first: not knowing the
// version is not knowing "Ray <= 2.35". nullopt where the GCS cannot be asked for one row.
std::optional<util::Result<NodeTable, RpcError>> look_at_row(GcsClient& client, const NodeId& id,
                                                             std::chrono::milliseconds timeout, std::stop_token stop) {
  if (!client.version()) {
    if (const auto v = client.check_alive(timeout, stop); !v) {
      return util::Result<NodeTable, RpcError>::failure(v.error());
    }
  }
  const NodeFilter filter = node_filter_for(client.version());
  if (filter == NodeFilter::none) {
    return std::nullopt;
  }
  return get_nodes(client, NodeMatch{id, ""}, filter, timeout, std::move(stop));
}

// The row of `id` in `table`, which a GCS that did not filter sends whole.
const NodeEntry* row_of(const NodeTable& table, const NodeId& id) {
  const std::string hex = id.hex();
  for (const NodeEntry& e : table.nodes) {
    if (e.node_id_hex == hex) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

DrainResult drain_own_node(GcsClient& client, const DrainOptions& options, util::Clock& clock, std::stop_token stop) {
  DrainResult r;
  const auto started = clock.now();
  const auto end = started + options.window;
  auto bounded = [&] {
    const auto left = util::ms_between(clock.now(), end);
    return std::max(std::chrono::milliseconds(1), std::min(options.rpc_timeout, left));
  };
  auto done = [&](DrainOutcome outcome, std::string line) {
    r.outcome = outcome;
    r.line = std::move(line);
    r.waited = util::ms_between(started, clock.now());
    return r;
  };
  const std::string who = "head GCS at " + client.target();

  std::optional<OwnNode> node = options.known;
  if (!node) {
    NodeTable table;
    const auto found = find_own_node(client, options.node_name, options.not_before_ms, bounded(), stop, &table);
    if (!found) {
      return done(DrainOutcome::not_drained, "not drained: " + who + " did not answer the node lookup: " +
                                                 found.error().describe());
    }
    if (!found.value()) {
      return done(DrainOutcome::not_drained, "not drained: " + no_own_node_line(table, options.node_name));
    }
    node = found.value();
  } else if (const auto rows = look_at_row(client, node->id, bounded(), stop); rows && *rows) {
    // The head watch found it ALIVE up to 2 s ago: a GCS that gave up on it since (a drain of a
    // DEAD node is accepted) must not read as a node that drained idle at once.
    const NodeEntry* row = row_of(rows->value(), node->id);
    if (row == nullptr || !row->alive) {
      const std::string what = row == nullptr ? "gone from the head's GCS node table" : "already DEAD in the head's GCS";
      return done(DrainOutcome::not_drained,
                  "not drained: " + options.node_name + " (node " + node->id.hex().substr(0, 12) + ") was " + what +
                      (row != nullptr && !row->death_reason.empty() ? " (" + util::printable(row->death_reason) + ")"
                                                                     : ""));
    }
  }
  const std::int64_t deadline_ms = options.now_wall_ms + options.window.count();
  const auto answer = drain_node(client, node->id, options.message, deadline_ms, bounded(), stop);
  if (!answer) {
    if (answer.error().unimplemented()) {
      r.unsupported = true;
      return done(DrainOutcome::not_drained, "not drained: " + who + " has no DrainNode (Ray < 2.9)");
    }
    return done(DrainOutcome::not_drained, "not drained: " + who + " did not answer DrainNode: " +
                                               answer.error().describe());
  }
  if (!answer.value().accepted) {
    r.rejected = true;
    return done(DrainOutcome::not_drained, "not drained: " + who + " rejected the drain" +
                                               (answer.value().rejection.empty() ? ""
                                                                                 : ": " + answer.value().rejection));
  }
  spdlog::info("draining node {} (deadline in {}): no new work is scheduled on it; Ray stops once it is idle or at "
               "the deadline", node->id.hex().substr(0, 12), util::format_duration(options.window));

  // Until the row is DEAD (the raylet drained and exited) or the deadline has passed.
  // When the head stops answering (the whole cluster deleted, its head first), the raylet cannot
  // report itself drained: the deadline is then waited out, and the line must not claim work ran.
  std::optional<util::Clock::TimePoint> unanswered_since;
  std::string unanswered_why;
  int unreachable = 0;  // consecutive looks that found the head unreachable
  while (clock.now() < end + k_past_deadline) {
    const auto left = util::ms_between(clock.now(), end + k_past_deadline);
    if (!clock.sleep_for(std::min(options.poll_every, left), stop)) {
      return done(DrainOutcome::not_drained, "drain interrupted");
    }
    if (clock.now() >= end) {
      continue;
    }
    const auto rows = look_at_row(client, node->id, bounded(), stop);
    if (!rows) {
      continue;  // Ray <= 2.35 cannot be asked for one row: wait the deadline out
    }
    if (!*rows) {
      if (!unanswered_since) {
        unanswered_since = clock.now();
        unanswered_why = rows->error().describe();
      }
      if (rows->error().grpc_code != grpc::StatusCode::UNAVAILABLE || options.head_may_return) {
        unreachable = 0;
        continue;  // slow, or it may come back (GCS fault tolerance): the deadline still ends the wait
      }
      if (++unreachable >= k_unreachable_looks) {
        return done(DrainOutcome::head_gone,
                    "drained for " + util::format_elapsed(util::ms_between(started, clock.now())) + ", until the " +
                        who + " stopped answering (" + unanswered_why + "); without GCS fault tolerance no head "
                        "comes back to this cluster: stopping Ray now");
      }
      client.reset_channel();  // look again on a new connection
      continue;
    }
    unreachable = 0;
    unanswered_since.reset();
    if (const NodeEntry* e = row_of(rows->value(), node->id); e != nullptr && !e->alive) {
      return done(DrainOutcome::drained, "drained: the node was idle and its raylet exited after " +
                                             util::format_elapsed(util::ms_between(started, clock.now())) +
                                             (e->death_reason.empty() ? "" : " (" + util::printable(e->death_reason) + ")"));
    }
  }
  if (unanswered_since) {
    return done(DrainOutcome::deadline,
                "drained until the " + util::format_duration(options.window) + " deadline; the " + who +
                    " stopped answering " + util::format_elapsed(util::ms_between(started, *unanswered_since)) +
                    " into it (" + unanswered_why + "), so whether work still ran on the node is unknown" +
                    (options.head_may_return ? "; with GCS fault tolerance the head may come back, so the deadline "
                                               "was waited out"
                                             : "; a head that answers slowly is not a head gone, so the deadline "
                                               "was waited out"));
  }
  return done(DrainOutcome::deadline, "drained until the " + util::format_duration(options.window) +
                                          " deadline with work still running on the node; the GCS records its end "
                                          "as a preemption (AUTOSCALER_DRAIN_PREEMPTED)");
}

}  // namespace launcher::gcs
