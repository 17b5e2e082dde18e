#include "redis/channel.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "net/tcp_connect.hpp"

namespace launcher::redis {

namespace {

using Clock = std::chrono::steady_clock;
using Kind = RedisError::Kind;

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1'000'000));
}

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

}  // namespace

void Channel::SslFree::operator()(SSL* ssl) const { TlsClient::free_session(ssl); }

Channel::Channel(util::Fd fd, std::string peer, std::shared_ptr<const TlsClient> tls, SSL* ssl)
    : m_fd(std::move(fd)), m_peer(std::move(peer)), m_tls(std::move(tls)), m_ssl(ssl) {}

util::Result<Channel, RedisError> Channel::open(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                                std::shared_ptr<const TlsClient> tls, std::stop_token stop) {
  using R = util::Result<Channel, RedisError>;
  const Clock::time_point deadline = Clock::now() + timeout;
  // The stop token reaches the connect too: a Redis whose SYNs are dropped (a firewall, a node
  // gone) would otherwise hold a SIGTERMed preflight for the whole attempt.
  auto connected = net::tcp_connect(ip, port, timeout, stop);
  if (!connected) {
    return R::failure({stop.stop_requested() ? Kind::stopped : Kind::connect, connected.error()});
  }
  util::Fd fd = std::move(connected).value();
  // A request is one write, but a long pipeline may leave in several segments: without
  // TCP_NODELAY the last one can wait for the server's delayed ACK (40 ms on Linux).
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
  const std::string peer = (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
  if (!tls) {
    return Channel(std::move(fd), peer, nullptr, nullptr);
  }
  SSL* ssl = tls->new_session();
  if (ssl == nullptr || SSL_set_fd(ssl, fd.get()) != 1) {
    TlsClient::free_session(ssl);
    return R::failure({Kind::tls, "cannot start a TLS session (OpenSSL)"});
  }
  Channel channel(std::move(fd), peer, std::move(tls), ssl);
  const int raw = channel.fd();
  // shutdown() ends the poll below at once; the socket is closed by its owner later.
  const std::stop_callback on_stop(stop, [raw] { ::shutdown(raw, SHUT_RDWR); });
  while (true) {
    const int n = SSL_connect(ssl);
    if (n == 1) {
      return channel;
    }
    const int error = SSL_get_error(ssl, n);
    if (stop.stop_requested()) {
      ERR_clear_error();
      return R::failure({Kind::stopped, "stopped"});
    }
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      return R::failure(channel.m_tls->failure(ssl, peer, error, true));
    }
    pollfd p{raw, static_cast<short>(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    const int ready = ::poll(&p, 1, ms_left(deadline));
    if (ready == 0) {
      // A plaintext Redis reads a ClientHello as the start of an inline command and waits for
      // its end: it never answers. Retried (a slow server heals), with the likely cause named.
      return R::failure({Kind::timeout, "no TLS handshake with " + peer + " within " +
                                            std::to_string(timeout.count()) +
                                            " ms (a plaintext Redis never answers a TLS client: if this one does not "
                                            "speak TLS, use redis://)"});
    }
    if (ready < 0 && errno != EINTR) {
      return R::failure({Kind::closed, std::string("poll: ") + std::strerror(errno)});
    }
  }
}

Channel::Io Channel::tls_result(int n, bool sending) {
  if (n > 0) {
    return {Status::done, static_cast<std::size_t>(n)};
  }
  const int saved_errno = errno;
  m_ssl_error = SSL_get_error(m_ssl.get(), n);
  m_errno = 0;
  switch (m_ssl_error) {
    case SSL_ERROR_WANT_READ:
      return {Status::want_read, 0};
    case SSL_ERROR_WANT_WRITE:
      return {Status::want_write, 0};
    case SSL_ERROR_ZERO_RETURN:
      return {Status::eof, 0};
    case SSL_ERROR_SYSCALL:
      // A peer that hangs up without close_notify (OpenSSL 3 reports it as an SSL error with
      // SSL_R_UNEXPECTED_EOF_WHILE_READING, older ones as SYSCALL with errno 0).
      m_errno = saved_errno;
      return {m_errno == 0 && !sending ? Status::eof : Status::failed, 0};
    default:
      if (ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        ERR_clear_error();
        m_ssl_error = SSL_ERROR_ZERO_RETURN;
        return {Status::eof, 0};
      }
      return {Status::failed, 0};
  }
}

Channel::Io Channel::write(const char* data, std::size_t size) {
  if (m_ssl) {
    std::size_t written = 0;
    return tls_result(SSL_write_ex(m_ssl.get(), data, size, &written) == 1 ? static_cast<int>(written) : -1, true);
  }
  const ssize_t n = ::send(m_fd.get(), data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n >= 0) {
    return {Status::done, static_cast<std::size_t>(n)};
  }
  if (would_block(errno)) {
    return {Status::want_write, 0};
  }
  m_errno = errno;
  return {Status::failed, 0};
}

Channel::Io Channel::read(char* buffer, std::size_t size) {
  if (m_ssl) {
    std::size_t got = 0;
    return tls_result(SSL_read_ex(m_ssl.get(), buffer, size, &got) == 1 ? static_cast<int>(got) : -1, false);
  }
  const ssize_t n = ::recv(m_fd.get(), buffer, size, MSG_DONTWAIT);
  if (n > 0) {
    return {Status::done, static_cast<std::size_t>(n)};
  }
  if (n == 0) {
    m_errno = 0;
    return {Status::eof, 0};
  }
  if (would_block(errno)) {
    return {Status::want_read, 0};
  }
  m_errno = errno;
  return {Status::failed, 0};
}

RedisError Channel::failure(bool sending) const {
  if (m_ssl && m_ssl_error == SSL_ERROR_SSL) {
    return m_tls->failure(m_ssl.get(), m_peer, m_ssl_error, false);
  }
  ERR_clear_error();  // nothing in OpenSSL's queue may outlive this connection
  if (m_errno != 0) {
    return {Kind::closed, (sending ? "sending to " : "reading from ") + m_peer + ": " + std::strerror(m_errno)};
  }
  return {Kind::closed, m_peer + " closed the connection"};
}

}  // namespace launcher::redis
