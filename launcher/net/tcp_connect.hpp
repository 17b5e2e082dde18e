#pragma once
#include <stop_token>
#include <chrono>
#include <string>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace launcher::net {

// A TCP connection to the IP literal `ip` (v4 or v6) and `port`, made within `timeout`.
// Returns the connected socket (blocking mode, close-on-exec) or one line saying why not:
// "Connection refused (10.0.0.5:6379)", "no answer within 2000 ms (10.0.0.5:6379)". A `stop`
// request ends the wait within 100 ms ("stopped").
util::Result<util::Fd> tcp_connect(const std::string& ip, int port, std::chrono::milliseconds timeout,
                                   std::stop_token stop = {});

}  // namespace launcher::net
