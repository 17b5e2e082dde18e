#include "gcs/head_wait.hpp"

#include <spdlog/spdlog.h>

#include "gcs/gcs_client.hpp"
#include "util/parse.hpp"

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
        return net::ProtocolAnswer{
            version.error().permanent() ? net::ProtocolAnswer::Kind::refused : net::ProtocolAnswer::Kind::failed,
            version.error().describe()};
      });
}

util::WaitOptions head_wait_options(std::chrono::milliseconds timeout) {
  util::WaitOptions o;
  o.timeout = timeout;
  o.attempt_timeout = std::chrono::milliseconds(2'000);
  o.min_interval = std::chrono::milliseconds(250);
  o.max_backoff = std::chrono::milliseconds(2'000);
  return o;
}

HeadWaitResult wait_for_head(const std::string& what, const HeadAttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop) {
  spdlog::info("waiting for the {} (timeout {})", what, util::format_duration(options.timeout));
  const util::WaitReport report = util::paced_wait(what, options, clock, stop, attempt);
  HeadWaitResult result;
  result.end = report.end;
  result.attempts = report.attempts;
  result.elapsed = report.elapsed;
  switch (report.end) {
    case util::WaitEnd::ready:
      result.ray_version = report.last_line;
      spdlog::info("{} answered (Ray {}) after {} ms, {} attempts", what, result.ray_version, result.elapsed.count(),
                   result.attempts);
      break;
    case util::WaitEnd::refused:
      result.reason = what + " rejected the request: " + report.last_line;
      break;
    case util::WaitEnd::stopped:
      result.reason = "wait for the " + what + " stopped after " + util::format_duration(result.elapsed);
      break;
    case util::WaitEnd::not_ready:
    case util::WaitEnd::unreachable:
      result.reason = what + " not ready at the " + util::format_duration(options.timeout) + " deadline: " +
                      (report.last_line.empty() ? std::string("no attempt finished") : report.last_line);
      break;
  }
  return result;
}

}  // namespace launcher::gcs
