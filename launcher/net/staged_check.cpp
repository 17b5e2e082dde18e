#include "net/staged_check.hpp"

#include "net/dns_lookup.hpp"
#include "net/tcp_connect.hpp"

#include <algorithm>

namespace launcher::net {

StagedCheck::StagedCheck(HostPort target, std::string protocol_name, ProtocolCheck protocol)
    : m_target(std::move(target)), m_protocol_name(std::move(protocol_name)), m_protocol(std::move(protocol)) {}

util::Attempt StagedCheck::attempt(std::chrono::milliseconds timeout, std::stop_token stop) const {
  using Kind = util::Attempt::Kind;
  // One budget for the whole attempt: each stage gets what the ones before it left, so an
  // attempt never takes more than `timeout` (not one timeout per stage, and per address).
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto left = [&] {
    return std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                      deadline - std::chrono::steady_clock::now()));
  };
  const auto addresses = resolve_host(m_target.host, timeout, stop);
  if (!addresses) {
    return {Kind::failed, "DNS stage failing: " + addresses.error()};
  }
  std::string tcp_error;
  std::string connected_ip;
  for (const std::string& ip : addresses.value()) {
    auto fd = tcp_connect(ip, m_target.port, left(), stop);
    if (fd) {
      connected_ip = ip;
      break;  // closed here: the protocol check makes its own connection
    }
    tcp_error = fd.error();
  }
  if (connected_ip.empty()) {
    return {Kind::failed, "TCP connect stage failing: " + tcp_error};
  }
  const ProtocolAnswer answer = m_protocol(m_target, connected_ip, left(), stop);
  switch (answer.kind) {
    case ProtocolAnswer::Kind::ready:
      return {Kind::done, answer.detail};
    case ProtocolAnswer::Kind::refused:
      return {Kind::refused, answer.detail};
    case ProtocolAnswer::Kind::failed:
      break;
  }
  return {Kind::failed, m_protocol_name + " stage failing: " + answer.detail};
}

util::WaitOptions staged_wait_options(std::chrono::milliseconds timeout) {
  util::WaitOptions o;
  o.timeout = timeout;
  o.attempt_timeout = std::chrono::milliseconds(2'000);
  o.min_interval = std::chrono::milliseconds(250);
  o.max_backoff = std::chrono::milliseconds(2'000);
  return o;
}

StagedWaitResult wait_staged(const std::string& what, const AttemptFn& attempt, const util::WaitOptions& options,
                             util::Clock& clock, std::stop_token stop) {
  const util::WaitReport report = util::paced_wait(what, options, clock, std::move(stop), attempt);
  StagedWaitResult result;
  // A staged attempt is never `waiting`, so never `not_ready`: the deadline finds it unreachable.
  result.end = report.end == util::WaitEnd::not_ready ? util::WaitEnd::unreachable : report.end;
  result.attempts = report.attempts;
  result.elapsed = report.elapsed;
  if (report.end == util::WaitEnd::ready) {
    result.answer = report.last_line;
  }
  result.reason = util::describe_end(what, report, options);
  return result;
}

}  // namespace launcher::net
