#pragma once
#include <string>
#include <string_view>

#include "net/host_port.hpp"
#include "util/result.hpp"

namespace launcher {

// The boundary checks of the GCS fault-tolerance settings. Each returns the value, or an
// "expected …" phrase for bad_setting(): one line, exit 64, before anything starts, so a typo
// fails at once instead of after a deadline, and a bad value never reaches `ray start`.

// RAY_REDIS_ADDRESS: "host:port" or "redis://host:port" (host a DNS name, an IPv4 literal or a
// bracketed IPv6 literal), as Ray's head accepts it. Refused with a reason: rediss:// (TLS,
// which this build cannot check), credentials in the URL (they belong in REDIS_PASSWORD), a
// database number or path (Ray uses database 0), a list of addresses, a missing port.
util::Result<net::HostPort> parse_redis_address(std::string_view text);

// The password a user typed into a Redis URL ("redis://:pw@host:6379", "redis://u:pw@…"),
// or "": refused by parse_redis_address, yet a secret all the same, never to be echoed back.
std::string password_in_redis_url(std::string_view text);

// REDIS_USERNAME: 1-256 bytes, no spaces or control bytes (an ACL user name is one word).
std::string check_redis_username(std::string_view text);

// REDIS_PASSWORD: 1-4096 bytes, no control bytes; a trailing newline (a Secret made from a
// file written by `echo`) gets its own hint. The text is never echoed.
std::string check_redis_password(std::string_view text);

// RAY_external_storage_namespace: 1-256 bytes, no control bytes, no leading or trailing space.
std::string check_storage_namespace(std::string_view text);

}  // namespace launcher
