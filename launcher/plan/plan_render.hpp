#pragma once
#include <string>

#include "plan/plan.hpp"

namespace launcher {

// For people: sections for identity, checks (with fixes), environment (with reasons),
// ray start argv and the command. Argv is shown quoted for reading only; nothing runs a shell.
std::string render_plan_text(const Plan& plan);

// The stable JSON schema "raylaunch.plan/v1" documented in docs/plan-json.md.
std::string render_plan_json(const Plan& plan);

// argv for display: words with spaces or shell metacharacters in single quotes; secrets
// redacted (redacted_argv).
std::string display_argv(const std::vector<std::string>& argv);

// `argv` as it may be shown anywhere (plan text and JSON, logs, the termination message):
// the value of --redis-password (`--redis-password=X` or `--redis-password X`) is "***", and
// so is any registered secret (util::redact). The Plan keeps the real argv; run executes that.
std::vector<std::string> redacted_argv(const std::vector<std::string>& argv);

}  // namespace launcher
