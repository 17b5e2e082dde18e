#include "watch/nccl_ras_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "net/tcp_connect.hpp"
#include "util/fd.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher::watch {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds k_slice{100};  // how soon a stop request is seen
constexpr std::size_t k_max_line = 1024;          // a reply line: the server's own buffer is 1024 bytes

// One exchange with one server, under one deadline.
class Exchange {
 public:
  // `deadline`: when the whole exchange must be over, `limit` long after it began.
  Exchange(util::Fd fd, Clock::time_point deadline, std::chrono::milliseconds limit, std::stop_token stop,
           std::string who)
      : m_fd(std::move(fd)), m_deadline(deadline), m_limit(limit), m_stop(std::move(stop)), m_who(std::move(who)) {}

  // "" or why not.
  std::string send(const std::string& line) {
    std::size_t done = 0;
    while (done < line.size()) {
      if (const std::string why = wait_for(POLLOUT); !why.empty()) {
        return why;
      }
      const ssize_t n = ::send(m_fd.get(), line.data() + done, line.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno != EINTR && errno != EAGAIN) {
        return "writing to the NCCL RAS at " + m_who + ": " + std::strerror(errno);
      }
      done += n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    return {};
  }

  // One reply line, without its newline (or "\r\n").
  util::Result<std::string> line() {
    for (;;) {
      if (const auto end = m_buffer.find('\n'); end != std::string::npos) {
        std::string out = m_buffer.substr(0, end);
        m_buffer.erase(0, end + 1);
        if (!out.empty() && out.back() == '\r') {
          out.pop_back();
        }
        return out;
      }
      if (m_buffer.size() > k_max_line) {
        return util::Result<std::string>::failure("the NCCL RAS at " + m_who + " sent a reply line over " +
                                                  std::to_string(k_max_line) + " bytes");
      }
      const auto got = read_some(k_max_line);
      if (!got) {
        return util::Result<std::string>::failure(got.error());
      }
      if (*got == 0) {
        return util::Result<std::string>::failure("the NCCL RAS at " + m_who + " closed the connection" +
                                                  (m_buffer.empty() ? "" : " mid-line"));
      }
    }
  }

  // Everything up to the server's EOF, at most `max` bytes.
  util::Result<std::string> rest(std::size_t max) {
    for (;;) {
      if (m_buffer.size() > max) {
        return util::Result<std::string>::failure("the NCCL RAS status dump from " + m_who + " exceeded " +
                                                  util::format_size(max) + ": ignored");
      }
      const auto got = read_some(max + 1 - m_buffer.size());
      if (!got) {
        return util::Result<std::string>::failure(got.error());
      }
      if (*got == 0) {
        return std::move(m_buffer);
      }
    }
  }

 private:
  // Reads what is there (at most `max`) into the buffer; 0 at EOF.
  util::Result<std::size_t> read_some(std::size_t max) {
    if (const std::string why = wait_for(POLLIN); !why.empty()) {
      return util::Result<std::size_t>::failure(why);
    }
    char chunk[64 * 1024];
    const ssize_t n = ::recv(m_fd.get(), chunk, std::min(sizeof chunk, max), 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) {
        return read_some(max);
      }
      return util::Result<std::size_t>::failure("reading from the NCCL RAS at " + m_who + ": " + std::strerror(errno));
    }
    m_buffer.append(chunk, static_cast<std::size_t>(n));
    return static_cast<std::size_t>(n);
  }

  // "" once the socket is ready for `events`, else why not (the deadline, a stop request).
  std::string wait_for(short events) {
    for (;;) {
      if (m_stop.stop_requested()) {
        return "stopped";
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - Clock::now());
      if (left.count() <= 0) {
        return "no answer within " + util::format_duration(m_limit) + " from the NCCL RAS at " + m_who;
      }
      pollfd p{m_fd.get(), events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min(left, k_slice).count()));
      if (r > 0) {
        return {};  // ready, or an error/hang-up the next call reports
      }
      if (r < 0 && errno != EINTR) {
        return std::string("poll: ") + std::strerror(errno);
      }
    }
  }

 private:
  util::Fd m_fd;
  Clock::time_point m_deadline;
  std::chrono::milliseconds m_limit;
  std::stop_token m_stop;
  std::string m_who;
  std::string m_buffer;
};

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
}

}  // namespace

util::Result<RasDump> query_ras_status(const net::HostPort& address, const RasLimits& limits, std::stop_token stop) {
  using R = util::Result<RasDump>;
  const std::string who = address.text();
  const auto deadline = Clock::now() + limits.deadline;
  auto fd = net::tcp_connect(address.host, address.port, limits.deadline, stop);
  if (!fd) {
    return R::failure("cannot connect to the NCCL RAS at " + who + ": " + fd.error());
  }
  const int flags = ::fcntl(fd->get(), F_GETFL);
  ::fcntl(fd->get(), F_SETFL, flags | O_NONBLOCK);
  Exchange x(std::move(fd.value()), deadline, limits.deadline, stop, who);

  // The handshake. A server of another protocol version is used anyway, as ncclras does.
  if (std::string why = x.send("CLIENT PROTOCOL " + std::to_string(k_ras_protocol) + "\n"); !why.empty()) {
    return R::failure(why);
  }
  const auto hello = x.line();
  if (!hello) {
    return R::failure(hello.error());
  }
  constexpr std::string_view k_server = "SERVER PROTOCOL ";
  if (!starts_with_nocase(*hello, k_server)) {
    return R::failure("the server at " + who + " is not an NCCL RAS: it answered '" + util::printable(*hello, 80) + "'");
  }
  RasDump dump;
  const auto protocol = util::parse_int(util::trim(std::string_view(*hello).substr(k_server.size())), 0, 1'000'000);
  dump.server_protocol = protocol ? static_cast<int>(*protocol) : 0;

  // JSON carries every rank's operation counts; a server before 2.29 refuses the command and
  // speaks text (src/ras/client_support.cc: "set format" first in v2.29.2).
  if (std::string why = x.send("SET FORMAT json\n"); !why.empty()) {
    return R::failure(why);
  }
  const auto format = x.line();
  if (!format) {
    return R::failure(format.error());
  }
  if (util::trim(*format) == "OK") {
    dump.format = RasFormat::json;
  } else if (!starts_with_nocase(*format, "ERROR")) {
    return R::failure("the NCCL RAS at " + who + " answered SET FORMAT with '" + util::printable(*format, 80) + "'");
  }

  if (std::string why = x.send("STATUS\n"); !why.empty()) {
    return R::failure(why);
  }
  auto body = x.rest(limits.max_bytes);
  if (!body) {
    return R::failure(body.error());
  }
  dump.body = std::move(body.value());
  return dump;
}

}  // namespace launcher::watch
