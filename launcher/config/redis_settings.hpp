#pragma once
#include <string>
#include <string_view>

#include "net/host_port.hpp"
#include "util/result.hpp"

namespace launcher {

// The boundary checks of the GCS fault-tolerance settings. Each returns the value, or an
// "expected …" phrase for bad_setting(): one line, exit 64, before anything starts, so a typo
// fails at once instead of after a deadline, and a bad value never reaches `ray start`.

// RAY_REDIS_ADDRESS: "host:port", "redis://host:port" or "rediss://host:port" (TLS; host a DNS
// name, an IPv4 literal or a bracketed IPv6 literal), as Ray's head accepts it. Refused with a
// reason: credentials in the URL (they belong in REDIS_PASSWORD), a database number or path
// (Ray uses database 0), a list of addresses, another scheme, a missing port.
util::Result<net::HostPort> parse_redis_address(std::string_view text);

// Whether the address asks for TLS (rediss://, as Ray's services.get_address reads it).
bool redis_address_uses_tls(std::string_view text);

// Redis over TLS: Ray's own variables (ray_config_def.h REDIS_CA_CERT, REDIS_CA_PATH,
// REDIS_CLIENT_CERT, REDIS_CLIENT_KEY, REDIS_SERVER_NAME), so that one env block configures
// Ray's GCS and raylaunch's preflight and cleanup. "" = not set. The files are read by
// redis::TlsClient::load when a command connects, not here.
struct RedisTlsSettings {
  bool enabled = false;     // RAY_REDIS_ADDRESS is rediss://
  std::string ca_cert;      // RAY_REDIS_CA_CERT
  std::string ca_path;      // RAY_REDIS_CA_PATH
  std::string client_cert;  // RAY_REDIS_CLIENT_CERT
  std::string client_key;   // RAY_REDIS_CLIENT_KEY
  std::string server_name;  // RAY_REDIS_SERVER_NAME; "" = the host of RAY_REDIS_ADDRESS
};

// A TLS file setting: an absolute path of printable bytes.
std::string check_tls_path(std::string_view text);

// RAY_REDIS_SERVER_NAME: a DNS name or an IP address (the certificate must carry it).
std::string check_tls_server_name(std::string_view text);

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
