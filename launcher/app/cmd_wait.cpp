#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/targets.hpp"
#include "app/process_setup.hpp"
#include "gcs/waits.hpp"
#include "plan/pod_identity.hpp"
#include "redis/redis_wait.hpp"
#include "util/fatal.hpp"

namespace launcher {

namespace {

// Worker side: DNS, TCP and CheckAlive until the head's GCS answers (what `run` does on a
// worker before `ray start`, whose own GCS retries give up after ~20 s).
int wait_for_head(const Config& config, const GcsTarget& target, const gcs::Credentials& credentials) {
  const auto head = net::parse_host_port(target.address);
  if (!head) {
    throw Fatal(exit_code::usage, bad_setting("address", target.address, head.error()));
  }
  const net::StagedCheck check = gcs::head_gcs_check(head.value(), credentials);
  util::SteadyClock clock;
  const StopOnSignal signals;
  const gcs::HeadWaitResult result = gcs::wait_for_head(
      "head GCS at " + head->text(), [&](auto timeout, auto stop) { return check.attempt(timeout, stop); },
      net::staged_wait_options(config.join_timeout), clock, signals.token());
  const bool unauthenticated = result.reason.find("UNAUTHENTICATED") != std::string::npos;
  const std::string hint = result.end == util::WaitEnd::refused && unauthenticated ? auth_hint(credentials) : "";
  return finish_wait(result.end, result.reason + hint, signals.signal());
}

// The pod names a wait can expect: none without a pod identity (a one-node wait from a
// workstation or a debugging shell), whose one node is named whatever `ray start --node-name`
// said, not after this host ("0/1 nodes alive; missing: devbox" would blame a host that is no
// Ray node).
std::vector<std::string> expected_names(const GcsTarget& target) {
  if (target.identity && target.identity->ordinal_source == k_single_node_ordinal) {
    return {};
  }
  return target.expected_names;
}

// Head side: the join barrier, N distinct ALIVE pods in the GCS node table.
int wait_for_nodes(const Config& config, const GcsTarget& target, const gcs::Credentials& credentials) {
  gcs::GcsNodeSource source(target.address, credentials);
  gcs::JoinOptions options;
  options.nodes = target.identity ? target.identity->nodes : config.nodes;  // LWS_GROUP_SIZE, PET_NNODES
  options.expected_names = expected_names(target);
  options.wait.timeout = config.join_timeout;
  util::SteadyClock clock;
  const StopOnSignal signals;
  const gcs::JoinResult result = gcs::wait_for_nodes(source, options, clock, signals.token());
  const std::string hint =
      result.last_error && result.last_error->unauthenticated() ? auth_hint(credentials) : "";
  return finish_wait(result.end, result.reason + hint, signals.signal());
}

// GCS fault tolerance: DNS, TCP, then AUTH and PING until Redis answers (what `run` does on
// the head before `ray start`); for init containers, and to test the preflight on its own.
int wait_for_redis(const Config& config) {
  const redis::RedisTarget target = redis_target_or_fatal(config, "wait redis");
  util::SteadyClock clock;
  const StopOnSignal signals;
  const redis::RedisWaitResult result =
      redis::wait_for_redis(target, net::staged_wait_options(config.join_timeout), clock, signals.token());
  return finish_wait(result.end, result.reason, signals.signal());
}

}  // namespace

int cmd_wait(const Invocation& inv) {
  if (inv.argument == "redis") {
    return wait_for_redis(inv.config);  // needs no GCS, no pod identity, no Ray token
  }
  const gcs::Credentials credentials = credentials_or_fatal(inv.config, inv.env);
  const GcsTarget target = resolve_gcs_target(inv.config, inv.env);
  if (const auto& token = credentials.token()) {
    spdlog::debug("sending Ray's auth token from {}", token->source);
  }
  return inv.argument == "head" ? wait_for_head(inv.config, target, credentials)
                                : wait_for_nodes(inv.config, target, credentials);
}

}  // namespace launcher
