#include "app/commands.hpp"

namespace launcher {

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"run",
       "the pod's container command: start Ray (head or worker), wait for every node, run the command as PID 1",
       Command::run, SignalMode::handled, "", {}, false, true, cmd_run},
      {"plan", "print what `run` would do in this pod (role, ray start argv, env, checks); start nothing",
       Command::plan, SignalMode::defaults, "", {}, false, true, cmd_plan},
      {"wait",
       "wait until N distinct pods are ALIVE in the GCS (nodes), the head's GCS answers (head), or Redis answers "
       "PING after AUTH (redis)",
       Command::wait, SignalMode::handled, "what", {"nodes", "head", "redis"}, false, false, cmd_wait},
      {"status", "print the GCS node table and the count of ALIVE nodes", Command::status, SignalMode::defaults, "",
       {}, false, false, cmd_status},
      {"probe", "kubelet exec probe: one RPC, exit 0 healthy or 1 unhealthy", Command::probe, SignalMode::defaults,
       "kind", {"liveness", "readiness"}, true, false, cmd_probe},
      {"redis-cleanup",
       "delete one Ray cluster's keys from the Redis of GCS fault tolerance (after the cluster is gone)",
       Command::redis_cleanup, SignalMode::handled, "", {}, false, false, cmd_redis_cleanup},
      {"version", "print the version and git commit", {}, SignalMode::defaults, "", {}, false, false, cmd_version},
  };
  return table;
}

}  // namespace launcher
