#include "gcs/head_readiness.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gcs/backoff.hpp"
#include "gcs/dns_lookup.hpp"
#include "gcs/gcs_client.hpp"
#include "util/parse.hpp"

namespace launcher::gcs {

const char* to_string(HeadStage stage) {
  switch (stage) {
    case HeadStage::dns:
      return "DNS";
    case HeadStage::tcp:
      return "TCP connect";
    case HeadStage::gcs:
      return "GCS";
    case HeadStage::ready:
      return "ready";
  }
  return "?";
}

namespace {

// A TCP connect to `ip`:`port` within `timeout`; "" on success, else why not.
std::string tcp_connect(const std::string& ip, int port, std::chrono::milliseconds timeout) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* sin = reinterpret_cast<sockaddr_in*>(&addr);
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, ip.c_str(), &sin->sin_addr) == 1) {
    sin->sin_family = AF_INET;
    sin->sin_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, ip.c_str(), &sin6->sin6_addr) == 1) {
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof(sockaddr_in6);
  } else {
    return "not an IP address: " + ip;
  }
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return std::string("socket: ") + std::strerror(errno);
  }
  std::string error;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) {
      error = std::strerror(errno);
    } else {
      pollfd p{fd, POLLOUT, 0};
      const int ready = poll(&p, 1, static_cast<int>(timeout.count()));
      int so_error = 0;
      socklen_t so_len = sizeof(so_error);
      if (ready == 0) {
        error = "no answer within " + std::to_string(timeout.count()) + " ms";
      } else if (ready < 0) {
        error = std::string("poll: ") + std::strerror(errno);
      } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0 || so_error != 0) {
        error = std::strerror(so_error != 0 ? so_error : errno);
      }
    }
  }
  close(fd);
  return error.empty() ? "" : error + " (" + ip + ":" + std::to_string(port) + ")";
}

std::string target_of(const HostPort& hp) {
  const bool v6 = hp.host.find(':') != std::string::npos;
  return (v6 ? "[" + hp.host + "]" : hp.host) + ":" + std::to_string(hp.port);
}

}  // namespace

GcsHeadChecker::GcsHeadChecker(HostPort head, std::optional<AuthToken> token)
    : m_head(std::move(head)), m_token(std::move(token)) {}

GcsHeadChecker::~GcsHeadChecker() = default;

std::string GcsHeadChecker::describe() const { return "head GCS at " + target_of(m_head); }

HeadAttempt GcsHeadChecker::attempt(std::chrono::milliseconds timeout) {
  HeadAttempt a;
  const auto addresses = resolve_host(m_head.host, timeout);
  if (!addresses) {
    a.stage = HeadStage::dns;
    a.detail = addresses.error();
    return a;
  }
  std::string tcp_error;
  bool connected = false;
  for (const std::string& ip : addresses.value()) {
    tcp_error = tcp_connect(ip, m_head.port, timeout);
    if (tcp_error.empty()) {
      connected = true;
      break;
    }
  }
  if (!connected) {
    a.stage = HeadStage::tcp;
    a.detail = tcp_error;
    return a;
  }
  // A fresh client per attempt: the connection is torn down anyway while the head is not
  // ready, and the name may now point at a new pod IP.
  GcsClient client(target_of(m_head), m_token);
  const auto version = client.check_alive(timeout);
  if (!version) {
    a.stage = HeadStage::gcs;
    a.detail = version.error().describe();
    a.rpc_error = version.error();
    return a;
  }
  a.stage = HeadStage::ready;
  a.detail = version.value();
  return a;
}

HeadWaitResult wait_for_head(HeadChecker& checker, const HeadWaitOptions& options, Clock& clock) {
  HeadWaitResult result;
  const Clock::TimePoint start = clock.now();
  const Clock::TimePoint deadline = start + options.timeout;
  Backoff backoff(options.min_interval, options.max_backoff);
  std::string last_line;
  Clock::TimePoint last_logged{};

  spdlog::info("waiting for the {} (timeout {})", checker.describe(), util::format_duration(options.timeout));
  for (Clock::TimePoint now = start; now < deadline; now = clock.now()) {
    const auto attempt_timeout = std::clamp(ms_between(now, deadline), std::chrono::milliseconds(1),
                                            options.attempt_timeout);
    result.last = checker.attempt(attempt_timeout);
    ++result.attempts;
    const Clock::TimePoint after = clock.now();
    if (result.last.stage == HeadStage::ready) {
      result.outcome = HeadOutcome::ready;
      result.elapsed = ms_between(start, after);
      spdlog::info("{} answered (Ray {}) after {} ms, {} attempts", checker.describe(), result.last.detail,
                   result.elapsed.count(), result.attempts);
      return result;
    }
    if (result.last.rpc_error && result.last.rpc_error->unauthenticated()) {
      result.outcome = HeadOutcome::rejected;
      break;
    }
    const std::string line = std::string(to_string(result.last.stage)) + " stage failing: " + result.last.detail;
    if (line != last_line || after - last_logged >= options.progress_every) {
      spdlog::warn("{}: {} ({} ms left)", checker.describe(), line, ms_between(after, deadline).count());
      last_line = line;
      last_logged = after;
    }
    const auto left = ms_between(clock.now(), deadline);
    const auto delay = backoff.next();
    if (left <= delay) {
      clock.sleep_for(left);
      break;
    }
    clock.sleep_for(delay);
  }
  result.elapsed = ms_between(start, clock.now());
  if (result.outcome == HeadOutcome::rejected) {
    result.reason = checker.describe() + " rejected the request: " + result.last.detail;
  } else {
    result.reason = checker.describe() + " not ready at the " + util::format_duration(options.timeout) +
                    " deadline: " + to_string(result.last.stage) + " stage failing: " + result.last.detail;
  }
  return result;
}

}  // namespace launcher::gcs
