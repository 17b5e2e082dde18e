#include "net/host_port.hpp"

#include <arpa/inet.h>

#include <array>

#include "net/dns_name.hpp"
#include "util/parse.hpp"

namespace launcher::net {

std::string HostPort::text() const { return (is_ipv6() ? "[" + host + "]" : host) + ":" + std::to_string(port); }

bool is_ip_literal(std::string_view host) {
  if (host.empty() || host.size() > 64) {
    return false;
  }
  const std::string h(host);
  std::array<unsigned char, 16> buf{};
  return inet_pton(AF_INET, h.c_str(), buf.data()) == 1 || inet_pton(AF_INET6, h.c_str(), buf.data()) == 1;
}

util::Result<HostPort> parse_host_port(std::string_view text, std::optional<int> default_port) {
  using R = util::Result<HostPort>;
  const std::string expected = default_port ? "HOST or HOST:PORT (an IPv6 address in brackets: [fd00::1]:6379)"
                                            : "HOST:PORT such as training-0.training.ml.svc.cluster.local:6379 "
                                              "(an IPv6 address in brackets: [fd00::1]:6379)";
  if (text.find("://") != std::string_view::npos) {
    return R::failure(expected + ", without a scheme");
  }
  HostPort hp;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      return R::failure(expected);
    }
    hp.host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) {
        return R::failure(expected);
      }
      port_text = rest.substr(1);
      if (port_text.empty()) {
        return R::failure(expected);
      }
    }
    std::array<unsigned char, 16> buf{};
    if (inet_pton(AF_INET6, hp.host.c_str(), buf.data()) != 1) {
      return R::failure(expected);
    }
  } else {
    const auto colon = text.find(':');
    if (colon != std::string_view::npos && text.find(':', colon + 1) != std::string_view::npos) {
      return R::failure(expected);  // an IPv6 literal without brackets: its port is ambiguous
    }
    hp.host = std::string(text.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = text.substr(colon + 1);
      if (port_text.empty()) {
        return R::failure(expected);
      }
    }
    if (!is_host_name(hp.host) && !is_ip_literal(hp.host)) {
      return R::failure(expected);
    }
  }
  if (port_text.empty()) {
    if (!default_port) {
      return R::failure(expected);
    }
    hp.port = *default_port;
    return hp;
  }
  const auto port = util::parse_int(port_text, 1, 65535);
  if (!port) {
    return R::failure(expected + ", with a port from 1 to 65535");
  }
  hp.port = static_cast<int>(*port);
  return hp;
}

}  // namespace launcher::net
