#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace launcher::net {

// A network endpoint: a host name or an IP literal, and a port.
struct HostPort {
  std::string host;  // "training-0.training.ml.svc.cluster.local", "10.0.0.5", "fd00::1"
  int port = 0;

  bool is_ipv6() const { return host.find(':') != std::string::npos; }
  // "host:6379", "[fd00::1]:6379": the form every parser here accepts back.
  std::string text() const;
};

// Parses `host:port`, or `host` alone when `default_port` is given: host a DNS name or an IPv4
// literal, or an IPv6 literal in brackets (`[fd00::1]:6379`); port 1-65535. Refuses schemes
// (`redis://`, `http://`), paths, spaces, control bytes, empty parts and unbracketed IPv6, so a
// typo fails at once instead of waiting out a deadline. The error is an "expected …" phrase.
util::Result<HostPort> parse_host_port(std::string_view text, std::optional<int> default_port = std::nullopt);

// True for an IPv4 or IPv6 literal (no brackets).
bool is_ip_literal(std::string_view host);

}  // namespace launcher::net
