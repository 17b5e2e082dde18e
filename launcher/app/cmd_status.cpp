#include <cstdio>

#include "app/commands.hpp"
#include "app/gcs_target.hpp"
#include "gcs/gcs_client.hpp"
#include "gcs/status_render.hpp"
#include "util/fatal.hpp"

namespace launcher {

namespace {

// One GetAllNodeInfo; generous, since a loaded GCS with thousands of nodes is slow to list.
constexpr std::chrono::milliseconds k_status_timeout{10'000};

}  // namespace

// Prints the GCS node table; exit 0 when the GCS answered, 69 when it did not or refused our
// credentials.
int cmd_status(const Invocation& inv) {
  const std::optional<gcs::AuthToken> token = auth_token_or_fatal(inv.env);
  const GcsTarget target = resolve_gcs_target(inv.config, inv.env);
  gcs::GcsClient client(target.address, token);
  const auto table = client.get_all_node_info(k_status_timeout);
  if (!table) {
    const bool replied = table.error().grpc_code == 0;  // an error in GcsStatus, not in transport
    const std::string line = "GCS at " + target.address +
                             (replied ? " replied with an error: " : " did not answer: ") + table.error().describe();
    throw Fatal(exit_code::unavailable, line + (table.error().unauthenticated() ? auth_hint(token) : ""));
  }
  const std::string text = inv.config.output == OutputFormat::json
                               ? gcs::render_status_json(table.value(), target.address)
                               : gcs::render_status_text(table.value(), target.address);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return exit_code::ok;
}

}  // namespace launcher
