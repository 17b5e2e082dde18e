#include "net/tcp_connect.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace launcher::net {

namespace {

// How often a wait looks at its stop token.
constexpr std::chrono::milliseconds k_stop_slice{100};

}  // namespace

util::Result<util::Fd> tcp_connect(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                   std::stop_token stop) {
  using R = util::Result<util::Fd>;
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
    return R::failure("not an IP address: " + ip);
  }
  const std::string where = " (" + std::string(addr.ss_family == AF_INET6 ? "[" + ip + "]" : ip) + ":" +
                            std::to_string(port) + ")";
  util::Fd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    return R::failure(std::string("socket: ") + std::strerror(errno));
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) {
      return R::failure(std::strerror(errno) + where);
    }
    pollfd p{fd.get(), POLLOUT, 0};
    int ready = 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (stop.stop_requested()) {
        return R::failure("stopped" + where);
      }
      if (left.count() <= 0) {
        ready = 0;
        break;
      }
      ready = ::poll(&p, 1, static_cast<int>(std::min(left, k_stop_slice).count()));
      if (ready != 0 && !(ready < 0 && errno == EINTR)) {
        break;
      }
    }
    if (ready == 0) {
      return R::failure("no answer within " + std::to_string(timeout.count()) + " ms" + where);
    }
    if (ready < 0) {
      return R::failure(std::string("poll: ") + std::strerror(errno));
    }
    int so_error = 0;
    socklen_t so_len = sizeof(so_error);
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0 || so_error != 0) {
      return R::failure(std::strerror(so_error != 0 ? so_error : errno) + where);
    }
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace launcher::net
