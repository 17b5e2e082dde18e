#pragma once
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>

namespace launcher::health {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};
using Respond = std::function<void(HttpResponse)>;
// Called on the event loop with the request's method and path (query stripped); answers by
// calling `respond`, now or later (after a probe finished on another thread, posted back).
using Router = std::function<void(const std::string& method, const std::string& path, Respond respond)>;

// A minimal HTTP/1.1 server for the kubelet's httpGet probes and Prometheus: one request per
// connection (the kubelet opens a new one per probe), Connection: close. A slow or malformed
// client can never stall the event loop: every connection has a deadline, headers are capped
// at 8 KiB, bodies are refused, and each connection is served asynchronously.
class HttpServer {
 public:
  // Binds 0.0.0.0:`port` (`port` 0: an ephemeral one, see port()). Throws on a bind failure.
  HttpServer(boost::asio::io_context& io, int port, Router router);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace launcher::health
