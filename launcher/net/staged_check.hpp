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

// The pacing of every wait for a staged dependency (the head's GCS, Redis): attempts at least
// 250 ms apart, backing off to 2 s; each stage gets at most 2 s.
util::WaitOptions staged_wait_options(std::chrono::milliseconds timeout);

using AttemptFn = std::function<util::Attempt(std::chrono::milliseconds timeout, std::stop_token stop)>;

struct StagedWaitResult {
  util::WaitEnd end = util::WaitEnd::unreachable;  // ready, unreachable, refused or stopped
  std::string answer;  // when ready: what the protocol stage said ("2.9.0", "PONG after AUTH as ray")
  int attempts = 0;
  std::chrono::milliseconds elapsed{0};
  std::string reason;  // one line when not ready: the failing stage and why, never a secret
};

// Retries `attempt` (in production StagedCheck::attempt) until it is done, refused, the
// deadline passes or `stop` is requested, through util::paced_wait, which logs the failing
// stage at every change and every 10 s. `what` names the dependency in those lines and in
// `reason`. Callers log their own first and last lines.
StagedWaitResult wait_staged(const std::string& what, const AttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop);

}  // namespace launcher::net
