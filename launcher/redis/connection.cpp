#include "redis/connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "net/tcp_connect.hpp"
#include "util/strings.hpp"

namespace launcher::redis {

namespace {

using Clock = std::chrono::steady_clock;

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1'000'000));
}

std::string describe(const Reply& r) {
  switch (r.type) {
    case Reply::Type::status:
      return "+" + util::printable(r.text, 80);
    case Reply::Type::error:
      return "-" + util::printable(r.text, 80);
    case Reply::Type::integer:
      return "the integer " + std::to_string(r.integer);
    case Reply::Type::string:
      return "a " + std::to_string(r.text.size()) + "-byte string";
    case Reply::Type::nil:
      return "nil";
    case Reply::Type::array:
      return "an array of " + std::to_string(r.elements.size());
  }
  return "?";
}

}  // namespace

Connection::Connection(util::Fd fd, std::string peer, std::chrono::milliseconds command_timeout, std::stop_token stop)
    : m_fd(std::move(fd)),
      m_peer(std::move(peer)),
      m_command_timeout(command_timeout),
      m_stop(std::move(stop)),
      m_reader(std::make_unique<ReplyReader>()) {}

util::Result<Connection, RedisError> Connection::open(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                                      std::chrono::milliseconds command_timeout, std::stop_token stop) {
  using R = util::Result<Connection, RedisError>;
  auto fd = net::tcp_connect(ip, port, timeout);
  if (!fd) {
    return R::failure({RedisError::Kind::connect, fd.error()});
  }
  // A request is one write, but a long pipeline may leave in several segments: without
  // TCP_NODELAY the last one can wait for the server's delayed ACK (40 ms on Linux).
  const int one = 1;
  ::setsockopt(fd.value().get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const std::string peer = (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
  return Connection(std::move(fd).value(), peer, command_timeout, std::move(stop));
}

util::Result<std::vector<Reply>, RedisError> Connection::pipeline(const std::vector<Command>& commands) {
  using R = util::Result<std::vector<Reply>, RedisError>;
  std::vector<Reply> replies;
  const auto fail = [&](RedisError::Kind kind, std::string detail) {
    m_broken = true;
    if (m_stop.stop_requested()) {
      return R::failure({RedisError::Kind::stopped, "stopped"});
    }
    return R::failure({kind, std::move(detail)});
  };
  if (m_broken) {
    return fail(RedisError::Kind::closed, "the connection to " + m_peer + " failed earlier");
  }
  if (commands.empty()) {
    return replies;
  }
  std::string request;
  for (const Command& command : commands) {
    append_command(request, command);
  }
  ++m_round_trips;
  const Clock::time_point deadline = Clock::now() + m_command_timeout;
  const int fd = m_fd.get();
  // shutdown() ends the poll below at once; the socket is closed by its owner later.
  const std::stop_callback on_stop(m_stop, [fd] { ::shutdown(fd, SHUT_RDWR); });

  // Writing and reading interleave: a server answers while the rest of a long pipeline is
  // still arriving, and if nobody read its replies both sides' buffers could fill up.
  std::size_t sent = 0;
  std::array<char, 64 * 1024> buf{};
  while (replies.size() < commands.size()) {
    auto next = m_reader->next();
    if (!next) {
      return fail(RedisError::Kind::protocol, m_peer + " answered something that is not Redis: " + next.error());
    }
    if (next.value()) {
      replies.push_back(std::move(*next.value()));
      continue;
    }
    if (m_stop.stop_requested()) {
      return fail(RedisError::Kind::stopped, "stopped");
    }
    pollfd p{fd, static_cast<short>(POLLIN | (sent < request.size() ? POLLOUT : 0)), 0};
    const int ready = ::poll(&p, 1, ms_left(deadline));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready == 0) {
      return fail(RedisError::Kind::timeout, "no reply from " + m_peer + " within " +
                                                 std::to_string(m_command_timeout.count()) + " ms");
    }
    if (ready < 0) {
      return fail(RedisError::Kind::closed, std::string("poll: ") + std::strerror(errno));
    }
    if ((p.revents & POLLOUT) != 0) {
      const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return fail(RedisError::Kind::closed, "sending to " + m_peer + ": " + std::strerror(errno));
      }
    }
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        // A server that refuses us may say why and hang up (protected mode's -DENIED).
        const std::string said =
            !replies.empty() && replies.back().is_error() ? ", after answering -" + util::printable(replies.back().text, 200)
                                                          : "";
        return fail(RedisError::Kind::closed,
                    m_peer + " closed the connection" + (n < 0 ? std::string(" (") + std::strerror(errno) + ")" : "") +
                        said);
      }
      if (n > 0) {
        if (const std::string err = m_reader->feed(buf.data(), static_cast<std::size_t>(n)); !err.empty()) {
          return fail(RedisError::Kind::protocol, m_peer + " answered something that is not Redis: " + err);
        }
      }
    }
  }
  return replies;
}

util::Result<Reply, RedisError> Connection::call(const Command& command) {
  using R = util::Result<Reply, RedisError>;
  auto replies = pipeline({command});
  if (!replies) {
    return R::failure(replies.error());
  }
  return std::move(replies.value().front());
}

util::Result<std::string, RedisError> Connection::authenticate(const Credentials& credentials) {
  using R = util::Result<std::string, RedisError>;
  const bool password = credentials.password.has_value();
  const bool username = password && credentials.username.has_value();
  std::vector<Command> commands;
  if (username) {
    commands.push_back({"AUTH", *credentials.username, *credentials.password});
  } else if (password) {
    commands.push_back({"AUTH", *credentials.password});
  }
  commands.push_back({"PING"});
  auto replies = pipeline(commands);
  if (!replies) {
    return R::failure(replies.error());
  }
  for (const Reply& r : replies.value()) {
    if (r.is_error()) {
      return R::failure(classify_error_reply(r.text, password, username));
    }
  }
  if (password && !replies.value().front().is_status("OK")) {
    return R::failure({RedisError::Kind::protocol,
                       m_peer + " answered AUTH with " + describe(replies.value().front()) + ", not +OK (not Redis?)"});
  }
  if (!replies.value().back().is_status("PONG")) {
    return R::failure({RedisError::Kind::protocol,
                       m_peer + " answered PING with " + describe(replies.value().back()) + ", not +PONG (not Redis?)"});
  }
  return std::string(username ? "PONG after AUTH as " + util::printable(*credentials.username, 64)
                              : password ? "PONG after AUTH" : "PONG (no AUTH: no password set)");
}

}  // namespace launcher::redis
