#include "health/http_server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

namespace launcher::health {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto k_connection_deadline = std::chrono::seconds(5);  // kubelet probes time out sooner
constexpr std::uint32_t k_header_limit = 8 * 1024;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Router> router) : m_stream(std::move(socket)), m_router(std::move(router)) {}

  void start() {
    m_parser.header_limit(k_header_limit);
    m_parser.body_limit(0);
    m_stream.expires_after(k_connection_deadline);
    http::async_read(m_stream, m_buffer, m_parser,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

 private:
  void on_read(beast::error_code ec) {
    if (ec) {
      if (ec != http::error::end_of_stream && ec != beast::error::timeout) {
        reply({400, "text/plain; charset=utf-8", "bad request: " + ec.message() + "\n"});
      }
      return;
    }
    const auto& req = m_parser.get();
    std::string path(req.target());
    path = path.substr(0, path.find('?'));
    (*m_router)(std::string(req.method_string()), path, [self = shared_from_this()](HttpResponse r) {
      self->reply(std::move(r));
    });
  }

  void reply(HttpResponse r) {
    m_response.result(static_cast<unsigned>(r.status));
    m_response.version(11);
    m_response.set(http::field::server, "raylaunch");
    m_response.set(http::field::content_type, r.content_type);
    m_response.set(http::field::cache_control, "no-store");
    m_response.keep_alive(false);
    m_response.body() = std::move(r.body);
    m_response.prepare_payload();
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
};

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(asio::io_context& io, int port, Router r) : acceptor(io), router(std::make_shared<Router>(std::move(r))) {
    const tcp::endpoint endpoint(tcp::v4(), static_cast<unsigned short>(port));
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
  }

  void accept() {
    acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) {
        return;
      }
      if (!ec) {
        std::make_shared<Session>(std::move(socket), self->router)->start();
      } else {
        spdlog::debug("health endpoint: accept failed: {}", ec.message());
      }
      self->accept();
    });
  }

  tcp::acceptor acceptor;
  std::shared_ptr<Router> router;  // shared with the sessions, which may outlive the server
};

HttpServer::HttpServer(asio::io_context& io, int port, Router router)
    : m_impl(std::make_shared<Impl>(io, port, std::move(router))) {
  m_impl->accept();
}

HttpServer::~HttpServer() {
  beast::error_code ignored;
  m_impl->acceptor.close(ignored);
}

int HttpServer::port() const { return m_impl->acceptor.local_endpoint().port(); }

}  // namespace launcher::health
