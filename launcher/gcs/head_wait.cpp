#include "gcs/head_wait.hpp"

#include <spdlog/spdlog.h>

#include "gcs/gcs_client.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

net::StagedCheck head_gcs_check(const net::HostPort& head, Credentials credentials) {
  return net::StagedCheck(
      head, "GCS",
      [credentials = std::move(credentials)](const net::HostPort& target, const std::string& /*ip*/,
                                             std::chrono::milliseconds timeout, std::stop_token stop) {
        // A fresh client per attempt, dialled by name (the name TLS verifies):
        // the connection is torn down anyway while the head is not ready, and
        // the name may now point at a new pod IP.
        GcsClient client(target.text(), credentials);
        const auto version = client.check_alive(timeout, std::move(stop));
        if (version) {
          return net::ProtocolAnswer{net::ProtocolAnswer::Kind::ready, version.value()};
        }
        if (version.error().permanent()) {
          return net::ProtocolAnswer{net::ProtocolAnswer::Kind::refused,
                                     "rejected the request: " + version.error().describe()};
        }
        return net::ProtocolAnswer{net::ProtocolAnswer::Kind::failed, version.error().describe()};
      });
}

HeadWaitResult wait_for_head(const std::string& what, const net::AttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop) {
  spdlog::info("waiting for the {} (timeout {})", what, util::format_duration(options.timeout));
  HeadWaitResult result = net::wait_staged(what, attempt, options, clock, std::move(stop));
  if (result.end == util::WaitEnd::ready) {
    spdlog::info("{} answered (Ray {}) after {} ms, {}", what, result.answer, result.elapsed.count(),
                 util::plural(result.attempts, "attempt"));
  }
  return result;
}

}  // namespace launcher::gcs
