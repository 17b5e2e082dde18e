#include "health/http_server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <map>
#include <spdlog/spdlog.h>

#include "util/strings.hpp"

namespace launcher::health {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// The kubelet sends its whole request at once and times a probe out after timeoutSeconds (1 s
// by default): a client still sending after 2 s is not a probe. The answer may wait for one
// probe RPC (at most --probe-timeout), then has 2 s to be written.
constexpr auto k_read_deadline = std::chrono::seconds(2);
constexpr auto k_write_deadline = std::chrono::seconds(2);
constexpr std::uint32_t k_header_limit = 8 * 1024;
// Probes come one at a time per prober; 64 connections at once is already abuse. Past that,
// the oldest connection still sending its request is closed for the new one, so a flood of
// slow clients costs at most 64 × ~10 KiB and never locks a probe out for long.
constexpr std::size_t k_max_connections = 64;
// Out of descriptors (EMFILE, ENFILE) or memory: wait before accepting again, doubling.
constexpr auto k_accept_backoff_min = std::chrono::milliseconds(50);
constexpr auto k_accept_backoff_max = std::chrono::milliseconds(1'000);

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Router> router) : m_stream(std::move(socket)), m_router(std::move(router)) {}

  void start() {
    m_parser.header_limit(k_header_limit);
    m_parser.body_limit(0);
    m_stream.expires_after(k_read_deadline);
    http::async_read(m_stream, m_buffer, m_parser,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  bool reading() const { return m_reading && !m_stopped; }
  bool stopped() const { return m_stopped; }

  // Closes the connection at once (evicted for a newer one): pending operations end aborted.
  void stop() {
    m_stopped = true;
    beast::error_code ignored;
    m_stream.socket().close(ignored);
  }

 private:
  void on_read(beast::error_code ec) {
    m_reading = false;
    if (ec) {
      if (ec != http::error::end_of_stream && ec != beast::error::timeout && ec != asio::error::operation_aborted) {
        reply({400, "text/plain; charset=utf-8", "bad request: " + ec.message() + "\n"});
      }
      return;
    }
    const auto& req = m_parser.get();
    m_head = req.method() == http::verb::head;
    std::string path(req.target());
    path = path.substr(0, path.find('?'));
    const std::string method(req.method_string());
    // A firewall per request: a bug in one answer (a /metrics renderer that throws) costs that
    // request a 500, never the event loop — which would end the run.
    try {
      (*m_router)(method, path, [self = shared_from_this()](HttpResponse r) { self->reply(std::move(r)); });
    } catch (const std::exception& e) {
      spdlog::error("health endpoint: internal error answering {} {}: {} (please report it)", method,
                    util::printable(path, 100), e.what());
      reply({500, "text/plain; charset=utf-8", "internal error\n"});
    }
  }

  void reply(HttpResponse r) {
    if (m_replied) {
      return;
    }
    m_replied = true;
    m_response.result(static_cast<unsigned>(r.status));
    m_response.version(11);
    m_response.set(http::field::server, "raylaunch");
    m_response.set(http::field::content_type, r.content_type);
    m_response.set(http::field::cache_control, "no-store");
    m_response.keep_alive(false);
    m_response.body() = std::move(r.body);
    m_response.prepare_payload();  // Content-Length of the body GET would get
    if (m_head) {
      m_response.body().clear();  // HEAD: the same headers, no body (RFC 9110 §9.3.2)
    }
    m_stream.expires_after(k_write_deadline);
    http::async_write(m_stream, m_response, [self = shared_from_this()](beast::error_code, std::size_t) {
      beast::error_code ignored;
      self->m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }

  beast::tcp_stream m_stream;
  std::shared_ptr<Router> m_router;
  beast::flat_buffer m_buffer{k_header_limit};
  http::request_parser<http::empty_body> m_parser;
  http::response<http::string_body> m_response;
  bool m_reading = true;
  bool m_stopped = false;
  bool m_head = false;
  bool m_replied = false;
};

// [::] with IPV6_V6ONLY off takes IPv4 and IPv6 alike (IPv6-only and dual-stack clusters);
// where the kernel has no IPv6 at all, 0.0.0.0.
void listen_on(tcp::acceptor& acceptor, int port) {
  const auto p = static_cast<unsigned short>(port);
  beast::error_code ec;
  acceptor.open(tcp::v6(), ec);
  if (!ec) {
    acceptor.set_option(asio::ip::v6_only(false), ec);
  }
  if (ec) {
    if (acceptor.is_open()) {
      acceptor.close();
    }
    acceptor.open(tcp::v4());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(tcp::endpoint(tcp::v4(), p));
  } else {
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(tcp::endpoint(tcp::v6(), p));
  }
  acceptor.listen(asio::socket_base::max_listen_connections);
}

bool out_of_resources(const beast::error_code& ec) {
  return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory ||
         ec.value() == ENFILE;
}

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(asio::io_context& io, int port, Router r)
      : acceptor(io), backoff_timer(io), router(std::make_shared<Router>(std::move(r))) {
    listen_on(acceptor, port);
  }

  void accept() {
    acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) {
        return;
      }
      if (!ec) {
        self->backoff = std::chrono::milliseconds(0);
        self->warned = false;
        self->serve(std::move(socket));
        self->accept();
      } else if (out_of_resources(ec)) {
        self->back_off(ec);
      } else {
        spdlog::debug("health endpoint: accept failed: {}", ec.message());
        self->accept();
      }
    });
  }

  void serve(tcp::socket socket) {
    forget_closed();
    if (sessions.size() >= k_max_connections) {
      evict_one();
    }
    auto session = std::make_shared<Session>(std::move(socket), router);
    sessions.emplace(next_id++, session);
    session->start();
  }

  // Without a descriptor to spare, accepting again at once would spin: free one (the oldest
  // slow client) and wait a little longer each time.
  void back_off(const beast::error_code& ec) {
    forget_closed();
    evict_one();
    backoff = std::min(k_accept_backoff_max, std::max(k_accept_backoff_min, backoff * 2));
    if (!warned) {
      spdlog::warn("health endpoint: cannot accept connections ({}); trying again in {} ms", ec.message(),
                   backoff.count());
      warned = true;
    }
    backoff_timer.expires_after(backoff);
    backoff_timer.async_wait([self = shared_from_this()](const beast::error_code& e) {
      if (!e) {
        self->accept();
      }
    });
  }

  void forget_closed() {
    for (auto it = sessions.begin(); it != sessions.end();) {
      it = it->second.expired() ? sessions.erase(it) : std::next(it);
    }
  }

  // The oldest connection still sending its request; else the oldest of all.
  void evict_one() {
    std::shared_ptr<Session> victim;
    for (auto& [id, weak] : sessions) {
      if (auto s = weak.lock(); s && s->reading()) {
        victim = s;
        break;
      }
    }
    for (auto it = sessions.begin(); !victim && it != sessions.end(); ++it) {
      if (auto s = it->second.lock(); s && !s->stopped()) {
        victim = s;
      }
    }
    if (victim) {
      victim->stop();
      ++evicted;
    }
  }

  tcp::acceptor acceptor;
  asio::steady_timer backoff_timer;
  std::shared_ptr<Router> router;  // shared with the sessions, which may outlive the server
  std::map<std::uint64_t, std::weak_ptr<Session>> sessions;  // by age: the smallest id is the oldest
  std::uint64_t next_id = 0;
  std::chrono::milliseconds backoff{0};
  bool warned = false;
  long evicted = 0;
};

HttpServer::HttpServer(asio::io_context& io, int port, Router router)
    : m_impl(std::make_shared<Impl>(io, port, std::move(router))) {
  m_impl->accept();
}

HttpServer::~HttpServer() {
  beast::error_code ignored;
  m_impl->acceptor.close(ignored);
  m_impl->backoff_timer.cancel();
}

int HttpServer::port() const { return m_impl->acceptor.local_endpoint().port(); }

}  // namespace launcher::health
