#pragma once
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <deque>
#include <string>

#include "util/fd.hpp"

namespace launcher::supervisor {

// Reads a child's output pipe on the event loop and logs it line by line with a prefix
// ("ray: …"). Logging never waits for stderr (app/stderr_sink.hpp drops lines when its queue is
// full), so a stalled log reader does not stall the child; the child can still wait on a full
// pipe (64 KiB) while the event loop is busy with something else. One turn of the loop reads at
// most 64 KiB of it, so that chatty output never holds off signals and reaping. Keeps the last
// lines for the reason line when the child fails. Every line is redacted whole before anything
// cuts it (a line over 8,000 bytes is logged in pieces, each cut after redaction).
class OutputRelay {
 public:
  OutputRelay(boost::asio::io_context& io, util::Fd pipe, std::string prefix);

  // Reads whatever is in the pipe now (at most 1 MiB), without waiting (the child just exited:
  // its last words may not have been read yet). A line still without its newline is kept for later.
  void drain();
  // The last `n` non-empty lines, joined with " | ".
  std::string last_lines(std::size_t n) const;

 private:
  void read_more();
  bool read_available(std::size_t at_most);  // at most `at_most` bytes; false at EOF
  void consume(const char* data, std::size_t size);
  void flush_partial();
  void emit(std::string line);

  boost::asio::posix::stream_descriptor m_pipe;
  std::string m_prefix;
  std::string m_partial;
  std::deque<std::string> m_recent;
  char m_buffer[8192];
};

}  // namespace launcher::supervisor
