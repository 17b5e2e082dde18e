#include <cstdio>

#include "app/commands.hpp"
#include "app/gcs_target.hpp"
#include "plan/plan.hpp"

namespace launcher {

// Prints the plan; starts nothing, writes nothing. Exits with what `run` would exit with
// before starting anything: 0, 64 (bad settings, thrown earlier) or 78 (strict check failed).
int cmd_plan(const Invocation& inv) {
  const Plan plan = make_plan(inv.config, gather_pod_facts(inv.config, inv.env), inv.command);
  credentials_or_fatal(inv.config, inv.env);  // 64 where `run` would refuse Ray's token or TLS files
  const std::string text =
      inv.config.output == OutputFormat::json ? render_plan_json(plan) : render_plan_text(plan);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return plan.exit_code();
}

}  // namespace launcher
