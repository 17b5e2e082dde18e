// Ray's output, read from its pipe on the event loop (supervisor/output_relay.hpp): however much
// is waiting, one turn of the loop reads a bounded part of it, so that chatty Ray output cannot
// hold off signals, reaping and the health endpoint; nothing is lost on the way.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>

#include "captured_log.hpp"
#include "supervisor/output_relay.hpp"
#include "util/fd.hpp"

using launcher::supervisor::OutputRelay;
using test_support::CapturedLog;

TEST_CASE("Ray's output: one turn of the event loop reads at most 64 KiB of it, and nothing is lost",
          "[supervisor]") {
  // Issue 26 item 11: every readable pipe was read until EAGAIN, in one handler.
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  launcher::util::Fd read_end(fds[0]);
  launcher::util::Fd write_end(fds[1]);
  constexpr int k_pipe = 1 << 20;
  REQUIRE(::fcntl(write_end.get(), F_SETPIPE_SZ, k_pipe) >= k_pipe);  // what Ray had written meanwhile
  const std::string line = std::string(99, 'x') + "\n";
  constexpr std::size_t k_lines = 8'000;  // 800,000 bytes
  std::string all;
  for (std::size_t i = 0; i < k_lines; ++i) {
    all += line;
  }
  REQUIRE(::write(write_end.get(), all.data(), all.size()) == static_cast<ssize_t>(all.size()));

  CapturedLog log;
  boost::asio::io_context io;
  OutputRelay relay(io, std::move(read_end), "ray: ");
  REQUIRE(io.run_one() == 1);  // the relay's first turn
  CHECK(log.lines() > 0);
  CHECK(log.lines() <= (64 * 1024) / line.size() + 1);
  write_end = launcher::util::Fd();  // EOF once all is read
  io.run();
  CHECK(log.lines() == k_lines);
}
