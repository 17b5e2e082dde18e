#pragma once
#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>

#include "net/host_port.hpp"
#include "util/result.hpp"

namespace launcher::watch {

// NCCL's RAS (reliability, availability, serviceability; NCCL >= 2.24): every NCCL process
// listens for clients on NCCL_RAS_ADDR, by default localhost:28028 (src/ras/client_support.cc,
// rasClientInitSocket, NCCL v2.30.4). Any process answers for the whole job: it gathers every
// communicator's state over the RAS network before it replies.
inline constexpr int k_ras_port = 28028;      // NCCL_RAS_CLIENT_PORT (src/ras/ras_internal.h, v2.30.4)
inline constexpr int k_ras_protocol = 2;      // NCCL_RAS_CLIENT_PROTOCOL, the same since 2.24

enum class RasFormat { json, text };

// One status dump, as the server sent it.
struct RasDump {
  int server_protocol = 0;
  RasFormat format = RasFormat::text;  // json from NCCL 2.29 (SET FORMAT), text before
  std::string body;
};

struct RasLimits {
  std::chrono::milliseconds deadline{15'000};  // the whole exchange, connect to EOF
  std::size_t max_bytes = 16 << 20;            // a larger dump is refused, not buffered
};

// Asks the RAS server at `address` (an IP literal) for its status, as NCCL's own `ncclras`
// client does (src/ras/client.cc, v2.30.4): "CLIENT PROTOCOL 2" → "SERVER PROTOCOL <n>"; then
// "SET FORMAT json" → "OK" (a server before 2.29 answers "ERROR: Unknown command …", and the text
// format is used); then "STATUS", whose reply is the dump, ended by the server closing the
// connection. Written from the protocol; no code of NCCL's. Fails with one line ("no answer
// within 15s from the NCCL RAS at 127.0.0.1:28028", "… closed the connection", "… is not a RAS
// server: 'HTTP/1.0 400'", "the status dump exceeded 16Mi") and never outlives `limits.deadline`;
// a `stop` request ends it within 100 ms.
util::Result<RasDump> query_ras_status(const net::HostPort& address, const RasLimits& limits,
                                       std::stop_token stop = {});

}  // namespace launcher::watch
