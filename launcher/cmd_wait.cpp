#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "error.hpp"
#include "gcs/gcs_node_source.hpp"
#include "gcs/gcs_target.hpp"
#include "gcs/head_readiness.hpp"
#include "gcs/join_barrier.hpp"
#include "logging.hpp"

namespace launcher {

namespace {

// Worker side: DNS, TCP and CheckAlive until the head's GCS answers (what `run` does on a
// worker before `ray start`, whose own GCS retries give up after ~20 s).
int wait_for_head(const Config& config, const gcs::GcsTarget& target, const std::optional<gcs::AuthToken>& token) {
  const auto head = gcs::split_host_port(target.address);
  if (!head) {
    throw Fatal(exit_code::usage, bad_setting("address", target.address, head.error()));
  }
  gcs::GcsHeadChecker checker(head.value(), token);
  gcs::HeadWaitOptions options;
  options.timeout = config.join_timeout;
  gcs::SteadyClock clock;
  const gcs::HeadWaitResult result = gcs::wait_for_head(checker, options, clock);
  switch (result.outcome) {
    case gcs::HeadOutcome::ready:
      return exit_code::ok;
    case gcs::HeadOutcome::rejected:
      throw Fatal(exit_code::usage, result.reason + gcs::auth_hint(token));
    case gcs::HeadOutcome::unreachable:
      break;
  }
  throw Fatal(exit_code::unavailable, result.reason);
}

// Head side: the join barrier, N distinct ALIVE pods in the GCS node table.
int wait_for_nodes(const Config& config, const gcs::GcsTarget& target, const std::optional<gcs::AuthToken>& token) {
  gcs::GcsNodeSource source(target.address, token);
  gcs::JoinOptions options;
  options.nodes = config.nodes;
  options.expected_names = target.expected_names;
  options.timeout = config.join_timeout;
  gcs::SteadyClock clock;
  const gcs::JoinResult result = gcs::wait_for_nodes(source, options, clock);
  switch (result.outcome) {
    case gcs::JoinOutcome::joined:
      return exit_code::ok;
    case gcs::JoinOutcome::timed_out:
      throw Fatal(exit_code::temp_fail, result.reason);
    case gcs::JoinOutcome::rejected:
      throw Fatal(exit_code::usage, result.reason + gcs::auth_hint(token));
    case gcs::JoinOutcome::unreachable:
      break;
  }
  throw Fatal(exit_code::unavailable, result.reason);
}

}  // namespace

int cmd_wait(const std::string& what, const Config& config, const EnvMap& env) {
  setup_logging(config.log_format, config.log_level);
  gcs::route_grpc_logs();
  const std::optional<gcs::AuthToken> token = gcs::auth_token_or_fatal(env);
  const gcs::GcsTarget target = gcs::resolve_gcs_target(config, env);
  if (token) {
    spdlog::debug("sending Ray's auth token from {}", token->source);
  }
  return what == "head" ? wait_for_head(config, target, token) : wait_for_nodes(config, target, token);
}

}  // namespace launcher
