#include <cstdio>

#include "commands.hpp"
#include "error.hpp"
#include "gcs/gcs_client.hpp"
#include "gcs/gcs_target.hpp"
#include "gcs/status_render.hpp"
#include "logging.hpp"

namespace launcher {

namespace {

// One GetAllNodeInfo; generous, since a loaded GCS with thousands of nodes is slow to list.
constexpr std::chrono::milliseconds k_status_timeout{10'000};

}  // namespace

// Prints the GCS node table; exit 0 when the GCS answered, 69 when not, 64 when it refused
// our credentials.
int cmd_status(const Config& config, const EnvMap& env) {
  setup_logging(config.log_format, config.log_level);
  gcs::route_grpc_logs();
  const std::optional<gcs::AuthToken> token = gcs::auth_token_or_fatal(env);
  const gcs::GcsTarget target = gcs::resolve_gcs_target(config, env);
  gcs::GcsClient client(target.address, token);
  const auto table = client.get_all_node_info(k_status_timeout);
  if (!table) {
    const bool replied = table.error().grpc_code == 0;  // an error in GcsStatus, not in transport
    const std::string line =
        "GCS at " + target.address + (replied ? " replied with an error: " : " did not answer: ") + table.error().describe();
    if (table.error().unauthenticated()) {
      throw Fatal(exit_code::usage, line + gcs::auth_hint(token));
    }
    throw Fatal(exit_code::unavailable, line);
  }
  const std::string text = config.output == OutputFormat::json ? gcs::render_status_json(table.value(), target.address)
                                                               : gcs::render_status_text(table.value(), target.address);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return exit_code::ok;
}

}  // namespace launcher
