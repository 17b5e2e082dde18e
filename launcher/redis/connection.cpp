#include "redis/connection.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>

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

Connection::Connection(Channel channel, std::chrono::milliseconds command_timeout, std::stop_token stop)
    : m_channel(std::move(channel)),
      m_command_timeout(command_timeout),
      m_stop(std::move(stop)),
      m_reader(std::make_unique<ReplyReader>()) {}

util::Result<Connection, RedisError> Connection::open(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                                      std::chrono::milliseconds command_timeout, std::stop_token stop,
                                                      std::shared_ptr<const TlsClient> tls) {
  using R = util::Result<Connection, RedisError>;
  auto channel = Channel::open(ip, port, timeout, std::move(tls), stop);
  if (!channel) {
    return R::failure(channel.error());
  }
  return Connection(std::move(channel).value(), command_timeout, std::move(stop));
}

util::Result<std::vector<Reply>, RedisError> Connection::pipeline(const std::vector<Command>& commands) {
  using R = util::Result<std::vector<Reply>, RedisError>;
  using Status = Channel::Status;
  std::vector<Reply> replies;
  const std::string& peer = m_channel.peer();
  const auto fail = [&](RedisError error) {
    m_broken = true;
    if (m_stop.stop_requested()) {
      return R::failure({RedisError::Kind::stopped, "stopped"});
    }
    return R::failure(std::move(error));
  };
  if (m_broken) {
    return fail({RedisError::Kind::closed, "the connection to " + peer + " failed earlier"});
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
  const int fd = m_channel.fd();
  // shutdown() ends the poll below at once; the socket is closed by its owner later.
  const std::stop_callback on_stop(m_stop, [fd] { ::shutdown(fd, SHUT_RDWR); });
  // A server that refuses us may say why and hang up (protected mode's -DENIED).
  const auto closed = [&](bool sending) {
    RedisError error = m_channel.failure(sending);
    if (error.kind == RedisError::Kind::closed && !replies.empty() && replies.back().is_error()) {
      error.detail += ", after answering -" + util::printable(replies.back().text, 200);
    } else if (error.kind == RedisError::Kind::closed && replies.empty() && !m_channel.tls()) {
      error.detail += " (a Redis that speaks TLS only closes a plaintext client: use rediss:// for it)";
    }
    return fail(std::move(error));
  };

  // Writing and reading interleave: a server answers while the rest of a long pipeline is
  // still arriving, and if nobody read its replies both sides' buffers could fill up. Each
  // pass tries both without blocking, then polls for what they wait for (with TLS a read may
  // need the socket writable, and a write readable).
  std::size_t sent = 0;
  std::array<char, 64 * 1024> buf{};
  while (replies.size() < commands.size()) {
    auto next = m_reader->next();
    if (!next) {
      return fail({RedisError::Kind::protocol, peer + " answered something that is not Redis: " + next.error()});
    }
    if (next.value()) {
      replies.push_back(std::move(*next.value()));
      continue;
    }
    if (m_stop.stop_requested()) {
      return fail({RedisError::Kind::stopped, "stopped"});
    }
    short events = 0;
    bool progress = false;
    if (sent < request.size()) {
      const Channel::Io w = m_channel.write(request.data() + sent, request.size() - sent);
      if (w.status == Status::failed || w.status == Status::eof) {
        return closed(true);
      }
      sent += w.bytes;
      progress = w.bytes > 0;
      events |= w.status == Status::want_read ? POLLIN : w.status == Status::want_write ? POLLOUT : 0;
    }
    const Channel::Io r = m_channel.read(buf.data(), buf.size());
    if (r.status == Status::failed || r.status == Status::eof) {
      return closed(false);
    }
    if (r.bytes > 0) {
      if (const std::string err = m_reader->feed(buf.data(), r.bytes); !err.empty()) {
        return fail({RedisError::Kind::protocol, peer + " answered something that is not Redis: " + err});
      }
      continue;
    }
    if (progress) {
      continue;
    }
    events |= r.status == Status::want_write ? POLLOUT : POLLIN;
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, ms_left(deadline));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready == 0) {
      return fail({RedisError::Kind::timeout,
                   "no reply from " + peer + " within " + std::to_string(m_command_timeout.count()) + " ms"});
    }
    if (ready < 0) {
      return fail({RedisError::Kind::closed, std::string("poll: ") + std::strerror(errno)});
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
                       peer() + " answered AUTH with " + describe(replies.value().front()) + ", not +OK (not Redis?)"});
  }
  if (!replies.value().back().is_status("PONG")) {
    return R::failure({RedisError::Kind::protocol,
                       peer() + " answered PING with " + describe(replies.value().back()) + ", not +PONG (not Redis?)"});
  }
  return std::string(username ? "PONG after AUTH as " + util::printable(*credentials.username, 64)
                              : password ? "PONG after AUTH" : "PONG (no AUTH: no password set)");
}

}  // namespace launcher::redis
