#pragma once
#include <chrono>
#include <functional>
#include <stop_token>
#include <string>

#include "net/host_port.hpp"
#include "util/paced_wait.hpp"

namespace launcher::net {

// What the protocol stage found once DNS and TCP passed.
struct ProtocolAnswer {
  enum class Kind { ready, failed, refused };  // refused: credentials rejected, will not heal
  Kind kind = Kind::failed;
  std::string detail;  // "Ray 2.9.0", "UNAVAILABLE: …", "WRONGPASS …"
};

// The protocol check: `target` is what the user named, `ip` the address that accepted TCP.
using ProtocolCheck =
    std::function<ProtocolAnswer(const HostPort& target, const std::string& ip, std::chrono::milliseconds timeout,
                                 std::stop_token stop)>;

// A dependency checked in the order its failures must be told apart: DNS (c-ares; the
// headless Service record can lag the pod by tens of seconds, kubernetes#92559, and CoreDNS
// caches NXDOMAIN, coredns#2434), TCP connect to each address, then the protocol itself (an
// empty CheckAlive for the GCS, PING after AUTH for Redis). Each attempt is one util::Attempt
// for util::paced_wait: "DNS stage failing: name not found (NXDOMAIN or no address)".
class StagedCheck {
 public:
  StagedCheck(HostPort target, std::string protocol_name, ProtocolCheck protocol);

  util::Attempt attempt(std::chrono::milliseconds timeout, std::stop_token stop) const;
  const HostPort& target() const { return m_target; }

 private:
  HostPort m_target;
  std::string m_protocol_name;
  ProtocolCheck m_protocol;
};

}  // namespace launcher::net
