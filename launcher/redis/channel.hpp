#pragma once
#include <chrono>
#include <memory>
#include <stop_token>
#include <string>

#include "redis/redis_error.hpp"
#include "redis/tls_client.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::redis {

// The byte stream under a Redis connection: a non-blocking TCP socket, plain or wrapped in
// TLS. Reads and writes never block; each says what it waits for, so that the caller polls
// the socket for exactly that against its own deadline. With TLS a read may need the socket
// writable (a key update) and a write readable; Connection::pipeline handles both the same way.
class Channel {
 public:
  enum class Status { done, want_read, want_write, eof, failed };
  struct Io {
    Status status = Status::done;
    std::size_t bytes = 0;  // with done: how many were moved
  };

  // Connects to `ip` (an IP literal) and `port`, and with `tls` completes the handshake
  // (which verifies the server), all within `timeout`; ended at once when `stop` is requested.
  // The handshake's failures are classified by TlsClient::failure ("its certificate is not
  // signed by a CA in RAY_REDIS_CA_CERT=…").
  static util::Result<Channel, RedisError> open(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                                std::shared_ptr<const TlsClient> tls, std::stop_token stop);

  Io write(const char* data, std::size_t size);
  Io read(char* buffer, std::size_t size);
  // Why the last failed or eof Io happened: a transport error for people ("sending to …: …",
  // "… closed the connection", or the TLS reason), for RedisError.
  RedisError failure(bool sending) const;

  int fd() const { return m_fd.get(); }
  const std::string& peer() const { return m_peer; }  // "10.0.0.5:6379"
  bool tls() const { return m_tls != nullptr; }

 private:
  struct SslFree {
    void operator()(struct ssl_st* ssl) const;
  };
  Channel(util::Fd fd, std::string peer, std::shared_ptr<const TlsClient> tls, struct ssl_st* ssl);
  Io tls_result(int n, bool sending);

  util::Fd m_fd;
  std::string m_peer;
  std::shared_ptr<const TlsClient> m_tls;
  std::unique_ptr<struct ssl_st, SslFree> m_ssl;
  int m_errno = 0;      // plain: errno of the last failure
  int m_ssl_error = 0;  // TLS: SSL_get_error of the last failure
};

}  // namespace launcher::redis
