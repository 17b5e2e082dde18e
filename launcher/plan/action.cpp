#include "plan/action.hpp"

#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

struct Describe {
  std::string operator()(const RaiseLimit& a) const {
    return std::string("raise ") + util::to_string(a.resource) + " soft limit to " +
           (a.soft ? std::to_string(*a.soft) : std::string("unlimited"));
  }
  std::string operator()(const WaitForRedis& a) const {
    const std::string auth = !a.password ? "no AUTH (REDIS_PASSWORD not set)"
                             : a.username ? "AUTH as " + util::printable(*a.username, 64) + " with REDIS_PASSWORD"
                                          : "AUTH with REDIS_PASSWORD";
    const std::string tls = a.tls_server_name ? " over TLS (certificate for " + util::printable(*a.tls_server_name, 64) + ")"
                                              : "";
    return "wait up to " + util::format_duration(a.timeout) + " for Redis at " + a.address.text() + tls +
           " to answer PING (" + auth + "); storage namespace \"" + util::printable(a.storage_namespace, 64) + "\"";
  }
};

}  // namespace

std::string describe(const Action& action) { return std::visit(Describe{}, action); }

}  // namespace launcher
