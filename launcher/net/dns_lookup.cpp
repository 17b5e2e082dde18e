#include "net/dns_lookup.hpp"

#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <mutex>

namespace launcher::net {

namespace {

struct Lookup {
  bool done = false;
  int status = ARES_SUCCESS;
  std::vector<std::string> v4;
  std::vector<std::string> v6;
};

void on_addrinfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* result) {
  auto* lookup = static_cast<Lookup*>(arg);
  lookup->done = true;
  lookup->status = status;
  if (result == nullptr) {
    return;
  }
  for (const ares_addrinfo_node* n = result->nodes; n != nullptr; n = n->ai_next) {
    std::array<char, INET6_ADDRSTRLEN> text{};
    if (n->ai_family == AF_INET) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(n->ai_addr);
      inet_ntop(AF_INET, &sin->sin_addr, text.data(), text.size());
      lookup->v4.emplace_back(text.data());
    } else if (n->ai_family == AF_INET6) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(n->ai_addr);
      inet_ntop(AF_INET6, &sin6->sin6_addr, text.data(), text.size());
      lookup->v6.emplace_back(text.data());
    }
  }
  ares_freeaddrinfo(result);
}

std::string describe_status(int status) {
  switch (status) {
    case ARES_ENOTFOUND:
      return "name not found (NXDOMAIN or no address)";
    case ARES_ENODATA:
      return "no address records";
    case ARES_ETIMEOUT:
      return "DNS server did not answer";
    case ARES_ECONNREFUSED:
      return "refused by the DNS server (REFUSED, or nothing listening)";
    case ARES_ESERVFAIL:
      return "DNS server failure (SERVFAIL)";
    default:
      return ares_strerror(status);
  }
}

// Drives c-ares until the lookup completes, `deadline` passes or `stop` is requested; true if
// it completed.
bool run_until_done(ares_channel channel, const Lookup& lookup, std::chrono::steady_clock::time_point deadline,
                    const std::stop_token& stop) {
  while (!lookup.done) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline || stop.stop_requested()) {
      return false;
    }
    std::array<ares_socket_t, ARES_GETSOCK_MAXNUM> socks{};
    const int bits = ares_getsock(channel, socks.data(), static_cast<int>(socks.size()));
    std::array<pollfd, ARES_GETSOCK_MAXNUM> fds{};
    nfds_t count = 0;
    for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
      const bool r = ARES_GETSOCK_READABLE(bits, i) != 0;
      const bool w = ARES_GETSOCK_WRITABLE(bits, i) != 0;
      if (!r && !w) {
        continue;
      }
      const auto idx = static_cast<std::size_t>(i);
      fds[count++] = pollfd{socks[idx], static_cast<short>((r ? POLLIN : 0) | (w ? POLLOUT : 0)), 0};
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    timeval max_wait{static_cast<time_t>(left.count() / 1000), static_cast<suseconds_t>((left.count() % 1000) * 1000)};
    timeval tv{};
    const timeval* next = ares_timeout(channel, &max_wait, &tv);
    const int wait_ms = static_cast<int>(next->tv_sec * 1000 + next->tv_usec / 1000);
    const int ready = poll(fds.data(), count, std::clamp(wait_ms, 1, 100));  // 100: a look at `stop`
    if (ready <= 0) {
      ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // timeouts and retries
      continue;
    }
    for (nfds_t i = 0; i < count; ++i) {
      const bool r = (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0;
      const bool w = (fds[i].revents & POLLOUT) != 0;
      ares_process_fd(channel, r ? fds[i].fd : ARES_SOCKET_BAD, w ? fds[i].fd : ARES_SOCKET_BAD);
    }
  }
  return true;
}

}  // namespace

util::Result<std::vector<std::string>> resolve_host(const std::string& host, std::chrono::milliseconds timeout,
                                                    std::stop_token stop) {
  using R = util::Result<std::vector<std::string>>;
  static std::once_flag init_once;
  static int init_status = ARES_SUCCESS;
  std::call_once(init_once, [] { init_status = ares_library_init(ARES_LIB_INIT_ALL); });
  if (init_status != ARES_SUCCESS) {
    return R::failure(host + ": c-ares initialisation failed: " + ares_strerror(init_status));
  }

  const auto start = std::chrono::steady_clock::now();
  ares_options options{};
  // Each server gets a third of the budget, so one dead nameserver does not use all of it.
  options.timeout = static_cast<int>(std::max<std::int64_t>(timeout.count() / 3, 50));
  options.tries = 2;
  ares_channel channel = nullptr;
  const int init = ares_init_options(&channel, &options, ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES);
  if (init != ARES_SUCCESS) {
    return R::failure(host + ": cannot read the resolver configuration (/etc/resolv.conf): " + ares_strerror(init));
  }
  Lookup lookup;
  ares_addrinfo_hints hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  ares_getaddrinfo(channel, host.c_str(), nullptr, &hints, on_addrinfo, &lookup);
  const bool finished = run_until_done(channel, lookup, start + timeout, stop);
  ares_destroy(channel);  // runs the callback with ARES_EDESTRUCTION if still pending

  if (!finished && stop.stop_requested()) {
    return R::failure(host + ": stopped");
  }
  if (!finished) {
    return R::failure(host + ": no DNS answer within " + std::to_string(timeout.count()) + " ms");
  }
  if (lookup.status != ARES_SUCCESS) {
    return R::failure(host + ": " + describe_status(lookup.status));
  }
  std::vector<std::string> addresses = std::move(lookup.v4);
  addresses.insert(addresses.end(), lookup.v6.begin(), lookup.v6.end());
  if (addresses.empty()) {
    return R::failure(host + ": no IPv4 or IPv6 address");
  }
  return addresses;
}

}  // namespace launcher::net
