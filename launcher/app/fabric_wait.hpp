#pragma once
#include <stop_token>

#include "config/config.hpp"
#include "plan/plan.hpp"
#include "supervisor/lifecycle.hpp"
#include "supervisor/supervisor.hpp"

namespace launcher {

namespace gcs {
class GcsClient;
}

// The gang fabric check of `run` (docs/run.md#the-gang-fabric-check), on the wait thread.
// The head, right after the join barrier, over its own GCS (`gcs`): announces the round, takes
// its part, gathers every link, prints the table, publishes it in /metrics and judges it: a
// bad link under --checks strict refuses the run (78, the command never starts), under warn
// it is logged. Bounded by --fabric-check-timeout (plus the RPCs' own few seconds). `present`:
// the pods the barrier saw; fewer than all (a quorum) skips the check, with a warning.
supervisor::WaitFinished head_fabric_check(const Plan& plan, const Config& config, gcs::GcsClient& gcs,
                                           supervisor::RunState& state, int present, std::stop_token stop);

// A worker, once its Ray runs and before its head watch, over its head's GCS: waits for the
// head's go (at most the join timeout), then takes its part within --fabric-check-timeout.
// Never ends the pod: the head judges.
void worker_fabric_check(const Plan& plan, const Config& config, gcs::GcsClient& head, std::stop_token stop);

}  // namespace launcher
