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
// connection (the kubelet opens a new one per probe), Connection: close; HEAD gets GET's
// headers and no body. Built to be abused without harm: a request must arrive within 2 s,
// headers are capped at 8 KiB, bodies are refused, at most 64 connections live at once (the
// oldest still sending its request makes room for a new one), out of descriptors it backs off
// instead of spinning, and a router that throws costs its request a 500, never the event loop.
// Listens on IPv6 and IPv4 alike.
class HttpServer {
 public:
  // Binds [::]:`port` for both families (0.0.0.0 where the kernel has no IPv6; `port` 0: an
  // ephemeral one, see port()). Throws on a bind failure.
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
