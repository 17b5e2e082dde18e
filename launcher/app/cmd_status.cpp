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

// 69 with one line; the token hint after UNAUTHENTICATED.
[[noreturn]] void fail(const GcsTarget& target, const gcs::RpcError& error, const gcs::Credentials& credentials) {
  const bool replied = error.grpc_code == 0;  // an error in GcsStatus, not in transport
  const std::string line =
      "GCS at " + target.address + (replied ? " replied with an error: " : " did not answer: ") + error.describe();
  throw Fatal(exit_code::unavailable, line + (error.unauthenticated() ? auth_hint(credentials) : ""));
}

}  // namespace

// Prints the GCS node table (or, with --count, the count alone); exit 0 when the GCS answered,
// 69 when it did not or refused our credentials.
int cmd_status(const Invocation& inv) {
  const gcs::Credentials credentials = credentials_or_fatal(inv.config, inv.env);
  const GcsTarget target = resolve_gcs_target(inv.config, inv.env);
  gcs::GcsClient client(target.address, credentials);
  const bool json = inv.config.output == OutputFormat::json;
  // --count asks for the same table: only names tell a pod restarted on a new IP from two pods.
  // The lighter GetAllNodeAddressAndLiveness (Ray >= 2.51) has addresses only, and Ray keeps a
  // crashed pod's old row ALIVE for 14 s (same IP) to 30-63 s (IP gone; Ray 2.60.0, docs/compat.md):
  // counted by address, that pod counted twice.
  const auto table = client.get_all_node_info(k_status_timeout);
  if (!table) {
    fail(target, table.error(), credentials);
  }
  const std::string text = inv.config.status_count ? gcs::render_status_count(table.value(), target.address, json)
                           : json                  ? gcs::render_status_json(table.value(), target.address)
                                                   : gcs::render_status_text(table.value(), target.address);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return exit_code::ok;
}

}  // namespace launcher
