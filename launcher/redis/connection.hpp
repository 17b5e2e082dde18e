#pragma once
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "redis/channel.hpp"
#include "redis/redis_error.hpp"
#include "redis/resp.hpp"
#include "redis/tls_client.hpp"
#include "util/result.hpp"

namespace launcher::redis {

using Command = std::vector<std::string>;

// Who we are to Redis. The password is a secret: never in a message, a log line or an error.
struct Credentials {
  std::optional<std::string> username;  // REDIS_USERNAME: an ACL user (Redis 6+)
  std::optional<std::string> password;  // REDIS_PASSWORD
};

// One connection to a Redis server, plain TCP or TLS (rediss://), blocking, with a deadline on
// every exchange. hiredis supplies the RESP decoder only (ReplyReader): its own connect resolves
// names with getaddrinfo, which a static glibc binary cannot use reliably, and its blocking reads
// time out per read (SO_RCVTIMEO), which a server that trickles one byte a second never trips.
// Here the socket is ours (Channel): connected to an IP literal (what net::StagedCheck's TCP
// stage or net::resolve_host found), read with poll() against one deadline per exchange, and
// closed at once when `stop` is requested.
class Connection {
 public:
  // Connects to `ip` (an IP literal) and `port`, and with `tls` completes a verified TLS
  // handshake, within `timeout`; later exchanges each get `command_timeout`. Fails with
  // Kind::connect ("Connection refused (10.0.0.5:6379)") or, for TLS, Kind::tls or Kind::closed.
  static util::Result<Connection, RedisError> open(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                                   std::chrono::milliseconds command_timeout, std::stop_token stop,
                                                   std::shared_ptr<const TlsClient> tls = nullptr);

  // Sends `commands` in one write and reads one reply per command: one round trip. Error
  // replies are replies (the caller judges them); the error is a transport or protocol
  // failure (timeout, closed, protocol, stopped), after which the connection is unusable.
  util::Result<std::vector<Reply>, RedisError> pipeline(const std::vector<Command>& commands);
  util::Result<Reply, RedisError> call(const Command& command);

  // AUTH (user and password, or password alone, or nothing without a password), then PING,
  // in one round trip. Rejected credentials are Kind::auth; "PONG" is success.
  util::Result<std::string, RedisError> authenticate(const Credentials& credentials);

  int round_trips() const { return m_round_trips; }
  const std::string& peer() const { return m_channel.peer(); }  // "10.0.0.5:6379"

 private:
  Connection(Channel channel, std::chrono::milliseconds command_timeout, std::stop_token stop);

  Channel m_channel;
  std::chrono::milliseconds m_command_timeout;
  std::stop_token m_stop;
  std::unique_ptr<ReplyReader> m_reader;  // owns hiredis' reader; movable with the connection
  int m_round_trips = 0;
  bool m_broken = false;
};

}  // namespace launcher::redis
