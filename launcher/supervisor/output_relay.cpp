#include "supervisor/output_relay.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "util/strings.hpp"

namespace launcher::supervisor {

namespace {

constexpr std::size_t k_keep_lines = 20;
constexpr std::size_t k_max_line = 8192;  // a longer "line" is logged in pieces

}  // namespace

OutputRelay::OutputRelay(boost::asio::io_context& io, util::Fd pipe, std::string prefix)
    : m_pipe(io), m_prefix(std::move(prefix)) {
  const int fd = pipe.release();
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  m_pipe.assign(fd);
  read_more();
}

void OutputRelay::read_more() {
  m_pipe.async_read_some(boost::asio::buffer(m_buffer), [this](const boost::system::error_code& ec, std::size_t n) {
    if (ec) {
      if (!m_partial.empty()) {
        emit(std::move(m_partial));
        m_partial.clear();
      }
      return;  // EOF: every writer closed the pipe (or the relay is going away)
    }
    consume(m_buffer, n);
    read_more();
  });
}

void OutputRelay::drain() {
  for (;;) {
    const ssize_t n = ::read(m_pipe.native_handle(), m_buffer, sizeof m_buffer);
    if (n <= 0) {
      break;
    }
    consume(m_buffer, static_cast<std::size_t>(n));
  }
  if (!m_partial.empty()) {
    emit(std::move(m_partial));
    m_partial.clear();
  }
}

void OutputRelay::consume(const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      emit(std::move(m_partial));
      m_partial.clear();
    } else {
      m_partial.push_back(data[i]);
      if (m_partial.size() >= k_max_line) {
        emit(std::move(m_partial));
        m_partial.clear();
      }
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
  const std::size_t from = m_recent.size() > n ? m_recent.size() - n : 0;
  std::string out;
  for (std::size_t i = from; i < m_recent.size(); ++i) {
    out += (out.empty() ? "" : " | ") + util::printable(m_recent[i], 512);
  }
  return out;
}

}  // namespace launcher::supervisor
