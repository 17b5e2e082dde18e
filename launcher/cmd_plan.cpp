#include <cstdio>

#include "commands.hpp"
#include "plan.hpp"
#include "plan_render.hpp"

namespace launcher {

// Prints the plan; starts nothing, writes nothing. Exits with what `run` would exit with
// before starting anything: 0, 64 (bad settings, thrown earlier) or 78 (strict check failed).
int cmd_plan(const Config& config, const EnvMap& env, const std::vector<std::string>& command) {
  const Plan plan = make_plan(config, gather_pod_facts(config, env), command);
  const std::string text = config.output == OutputFormat::json ? render_plan_json(plan) : render_plan_text(plan);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return plan.exit_code();
}

}  // namespace launcher
