#include "gcs/join_barrier.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "util/parse.hpp"

namespace launcher::gcs {

namespace {

std::string final_reason(const NodeSource& source, const JoinOptions& options, const JoinResult& r) {
  const std::string waited = util::format_duration(options.wait.timeout);
  const std::string error = r.last_error ? r.last_error->describe() : std::string("no answer");
  switch (r.end) {
    case util::WaitEnd::ready:
      return "";
    case util::WaitEnd::stopped:
      return "join barrier stopped after " + util::format_duration(r.elapsed) + ": " +
             (r.answered ? progress_line(r.last_count, options.nodes) : std::string("the GCS never answered"));
    case util::WaitEnd::refused:
      return source.describe() + " rejected the request: " + error;
    case util::WaitEnd::unreachable:
      return source.describe() + " unreachable at the " + waited + " deadline: " + error +
             (r.answered ? " (last answer: " + progress_line(r.last_count, options.nodes) + ")"
                         : " (it never answered)");
    case util::WaitEnd::not_ready:
      break;
  }
  return "join timed out after " + waited + ": " + progress_line(r.last_count, options.nodes);
}

}  // namespace

JoinResult wait_for_nodes(NodeSource& source, const JoinOptions& options, util::Clock& clock, std::stop_token stop) {
  using Kind = util::Attempt::Kind;
  JoinResult result;
  spdlog::info("waiting for {} nodes at {} (timeout {})", options.nodes, source.describe(),
               util::format_duration(options.wait.timeout));
  const util::WaitReport report = util::paced_wait(
      source.describe(), options.wait, clock, stop,
      [&](std::chrono::milliseconds timeout, std::stop_token s) -> util::Attempt {
        auto reply = source.poll(timeout, s);
        if (!reply) {
          result.last_error = reply.error();
          if (reply.error().unauthenticated()) {
            return {Kind::refused, reply.error().describe()};
          }
          // A transport failure may have left the channel in gRPC's own backoff, or bound to an
          // address the name no longer has (a restarted head pod): start afresh next time.
          if (reply.error().grpc_code != 0) {
            source.reset();
          }
          return {Kind::failed, "not answering: " + reply.error().describe()};
        }
        result.answered = true;
        result.last_error.reset();
        result.last_count = count_alive(reply.value(), options.expected_names);
        if (options.on_answer) {
          options.on_answer(result.last_count);
        }
        const std::string line = progress_line(result.last_count, options.nodes);
        return {result.last_count.distinct_alive() >= options.nodes ? Kind::done : Kind::waiting, line};
      });
  result.end = report.end;
  result.polls = report.attempts;
  result.elapsed = report.elapsed;
  if (result.end == util::WaitEnd::ready) {
    // "4/4 nodes alive after 4.1s (16 polls); counted once despite …"
    const std::string& line = report.last_line;
    const auto notes = line.find(';');
    spdlog::info("{} after {:.1f}s ({} polls){}", line.substr(0, notes), static_cast<double>(result.elapsed.count()) / 1000.0,
                 result.polls, notes == std::string::npos ? std::string() : line.substr(notes));
  }
  result.reason = final_reason(source, options, result);
  return result;
}

}  // namespace launcher::gcs
