#pragma once
#include <stop_token>
#include <chrono>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace launcher::net {

// Resolves `host` to IP addresses (text, IPv4 first) with c-ares, the resolver gRPC itself
// uses here: it reads /etc/resolv.conf and /etc/hosts directly. glibc's getaddrinfo is avoided
// on purpose: in a static binary its NSS modules must be dlopen'ed from the image's glibc,
// which may not match. An IP literal comes back as itself. The error is one line, e.g.
// "training-0.training.ml.svc.cluster.local: name not found (NXDOMAIN or no address)".
// A `stop` request ends the lookup within 100 ms ("stopped").
util::Result<std::vector<std::string>> resolve_host(const std::string& host, std::chrono::milliseconds timeout,
                                                    std::stop_token stop = {});

}  // namespace launcher::net
