#pragma once
#include <chrono>
#include <functional>
#include <stop_token>
#include <string>

#include "gcs/gcs_channel.hpp"
#include "net/host_port.hpp"
#include "net/staged_check.hpp"
#include "util/clock.hpp"
#include "util/paced_wait.hpp"

namespace launcher::gcs {

// A worker's check of its head, in stages: DNS (c-ares), TCP connect, then an empty CheckAlive,
// which every Ray 2.x GCS answers with its version. What waiting cannot fix is "refused", so the
// wait ends at once instead of at its deadline: UNAUTHENTICATED, and a TLS handshake that failed
// over certificates or TLS on one side only (RpcError::permanent()).
net::StagedCheck head_gcs_check(const net::HostPort& head, Credentials credentials);

// The head wait's pacing is net::staged_wait_options; its result's `answer` is the GCS's Ray
// version.
using HeadWaitResult = net::StagedWaitResult;

// Retries `attempt` (in production head_gcs_check(...).attempt) until the head's GCS answers,
// the deadline passes or `stop` is requested, logging the failing stage at every change and
// every 10 s. `what` names the head ("head GCS at training-0.training…:6379").
HeadWaitResult wait_for_head(const std::string& what, const net::AttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop);

}  // namespace launcher::gcs
