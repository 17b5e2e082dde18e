#include "supervisor/output_relay.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "util/redact.hpp"
#include "util/strings.hpp"

namespace launcher::supervisor {

namespace {

constexpr std::size_t k_keep_lines = 20;
// A longer "line" is logged in pieces of about this size; each piece is cut only after the
// whole text so far was redacted, holding back what could be the start of a secret.
constexpr std::size_t k_max_line = 8000;  // under the log line's 8 KiB, with the prefix
constexpr std::size_t k_reason_line = 512;  // the most of one line in the reason
// The most one turn of the event loop reads: chatty Ray output (a pipe refilled as fast as it is
// read) must not hold off signals, reaping, timers and probes; the rest waits for the next turn.
constexpr std::size_t k_per_turn = 64 * 1024;
// What drain() reads at most, after the child exited: the pipe's content then (64 KiB by
// default, 1 MiB at most unprivileged), while Ray's processes may still write.
constexpr std::size_t k_per_drain = 1024 * 1024;

}  // namespace

OutputRelay::OutputRelay(boost::asio::io_context& io, util::Fd pipe, std::string prefix)
    : m_pipe(io), m_prefix(std::move(prefix)) {
  const int fd = pipe.release();
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  m_pipe.assign(fd);
  read_more();
}

// Waits for the pipe to be readable and reads it here, never with a read of Asio's own in
// flight: drain() may then read the same pipe at any time without lines going out of order.
void OutputRelay::read_more() {
  m_pipe.async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
    if (ec) {
      return;  // the relay is going away
    }
    if (read_available(k_per_turn)) {
      read_more();  // the wait comes back at once if more is there, after what else is ready
    }
  });
}

bool OutputRelay::read_available(std::size_t at_most) {
  for (std::size_t done = 0; done < at_most;) {
    const ssize_t n = ::read(m_pipe.native_handle(), m_buffer, std::min(sizeof m_buffer, at_most - done));
    if (n > 0) {
      consume(m_buffer, static_cast<std::size_t>(n));
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return true;  // more may come
    }
    flush_partial();  // EOF: every writer closed the pipe (or it failed)
    return false;
  }
  return true;  // more may be there: the next turn reads it
}

void OutputRelay::drain() { read_available(k_per_drain); }

void OutputRelay::flush_partial() {
  if (!m_partial.empty()) {
    emit(util::redact(m_partial));
    m_partial.clear();
  }
}

void OutputRelay::consume(const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      emit(util::redact(m_partial));
      m_partial.clear();
      continue;
    }
    m_partial.push_back(data[i]);
    if (m_partial.size() >= k_max_line) {
      // Redact what there is, log all of it but the last (longest secret - 1) bytes, keep
      // those: a secret that starts in them is completed by what comes next.
      std::string redacted = util::redact(m_partial);
      const std::size_t hold = std::min(redacted.size() / 2, util::longest_secret());
      const std::string_view piece = util::cut_utf8(redacted, redacted.size() - hold);
      m_partial = redacted.substr(piece.size());
      emit(std::string(piece) + "…");
    }
  }
}

void OutputRelay::emit(std::string line) {
  if (!line.empty() && line.back() == '\r') {
    line.pop_back();
  }
  spdlog::info("{}{}", m_prefix, line);
  if (!line.empty()) {
    m_recent.push_back(std::move(line));
    if (m_recent.size() > k_keep_lines) {
      m_recent.pop_front();
    }
  }
}

std::string OutputRelay::last_lines(std::size_t n) const {
  // Already redacted; escaped once, where the reason is written. A last line without its
  // newline yet (Ray's processes may still hold the pipe) counts too, less what could be the
  // start of a secret.
  std::vector<std::string> lines(m_recent.begin(), m_recent.end());
  if (!m_partial.empty()) {
    const std::string redacted = util::redact(m_partial);
    lines.emplace_back(util::cut_utf8(redacted, redacted.size() - std::min(redacted.size(), util::longest_secret())));
  }
  const std::size_t from = lines.size() > n ? lines.size() - n : 0;
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) {
    const std::string_view line = util::cut_utf8(lines[i], k_reason_line);
    out += (out.empty() ? "" : " | ") + std::string(line) + (line.size() < lines[i].size() ? "…" : "");
  }
  return out;
}

}  // namespace launcher::supervisor
