// The health endpoint's HTTP server and probe cache on a real socket and event loop: a handler
// that throws costs its request a 500 and nothing else; a probe that throws is an unhealthy
// answer; HEAD gets no body.
#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/write.hpp>
#include <stdexcept>
#include <thread>

#include "health/http_server.hpp"
#include "health/probe_cache.hpp"

using namespace launcher::health;
using launcher::ProbeKind;
using launcher::ProbeResult;
namespace asio = boost::asio;

namespace {

std::string fetch(int port, const std::string& request) {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  asio::write(s, asio::buffer(request));
  std::string out;
  boost::system::error_code ec;
  char buf[4096];
  while (std::size_t n = s.read_some(asio::buffer(buf), ec)) {
    out.append(buf, n);
  }
  return out;
}

// Serves `router` while `client` runs on a thread of its own; returns when it is done.
void serve_while(Router router, const std::function<void(int port)>& client) {
  asio::io_context io;
  HttpServer server(io, 0, std::move(router));
  const int port = server.port();
  std::thread t([&] {
    client(port);
    io.stop();
  });
  io.run_for(std::chrono::seconds(20));
  t.join();
}

}  // namespace

TEST_CASE("a handler that throws answers 500; the server goes on serving", "[health]") {
  std::string boom, ok, head;
  serve_while(
      [](const std::string& method, const std::string& path, Respond respond) {
        if (path == "/boom") {
          throw std::runtime_error("a /metrics bug");
        }
        respond({200, "text/plain", method + " fine\n"});
      },
      [&](int port) {
        boom = fetch(port, "GET /boom HTTP/1.1\r\nHost: x\r\n\r\n");
        ok = fetch(port, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n");
        head = fetch(port, "HEAD /ok HTTP/1.1\r\nHost: x\r\n\r\n");
      });
  CHECK_THAT(boom, Catch::StartsWith("HTTP/1.1 500"));
  CHECK_THAT(ok, Catch::StartsWith("HTTP/1.1 200") && Catch::EndsWith("GET fine\n"));
  CHECK_THAT(head, Catch::StartsWith("HTTP/1.1 200") && Catch::Contains("Content-Length: 10\r\n") &&
                       Catch::EndsWith("\r\n\r\n"));
}

TEST_CASE("a probe that throws is an unhealthy answer with the reason", "[health]") {
  asio::io_context io;
  ProbeCache cache(io, [](ProbeKind) -> ProbeResult { throw std::runtime_error("grpc exploded"); },
                   std::chrono::milliseconds(0));
  const auto busy = asio::make_work_guard(io);  // the answer is posted from the probe's thread
  ProbeResult got;
  bool answered = false;
  cache.get(ProbeKind::liveness, [&](const ProbeResult& a) {
    got = a;
    answered = true;
    io.stop();
  });
  io.run_for(std::chrono::seconds(10));
  REQUIRE(answered);
  CHECK_FALSE(got.healthy);
  CHECK_THAT(got.line, Catch::Contains("internal error in the probe: grpc exploded"));
}
