#pragma once
#include <chrono>
#include <string>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::net {

// A TCP connection to the IP literal `ip` (v4 or v6) and `port`, made within `timeout`.
// Returns the connected socket (blocking mode, close-on-exec) or one line saying why not:
// "Connection refused (10.0.0.5:6379)", "no answer within 2000 ms (10.0.0.5:6379)".
util::Result<util::Fd> tcp_connect(const std::string& ip, int port, std::chrono::milliseconds timeout);

}  // namespace launcher::net
