#include "config/redis_settings.hpp"

#include <algorithm>

#include "net/dns_name.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_max_address = 1024;
constexpr std::size_t k_max_username = 256;
constexpr std::size_t k_max_password = 4096;
constexpr std::size_t k_max_namespace = 256;

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

const char* k_address_form = "host:port, redis://host:port or rediss://host:port (TLS)";

}  // namespace

util::Result<net::HostPort> parse_redis_address(std::string_view text) {
  using R = util::Result<net::HostPort>;
  const auto expected = [](const std::string& why) { return R::failure(std::string(k_address_form) + "; " + why); };
  if (text.empty() || text.size() > k_max_address || has_control(text)) {
    return R::failure(std::string(k_address_form) + ", at most 1024 printable bytes");
  }
  if (text.starts_with("rediss://")) {
    text.remove_prefix(9);
  } else if (text.starts_with("redis://")) {
    text.remove_prefix(8);
  } else if (text.find("://") != std::string_view::npos) {
    return expected("no other scheme");
  }
  if (text.find(',') != std::string_view::npos) {
    return expected("one address, not a list");
  }
  if (text.find('@') != std::string_view::npos) {
    return expected("no credentials in the address: put the password in REDIS_PASSWORD (from a Secret) and the "
                    "user in REDIS_USERNAME");
  }
  if (text.find('/') != std::string_view::npos || text.find('?') != std::string_view::npos) {
    return expected("no database number, path or options (Ray's GCS always uses database 0)");
  }
  auto hp = net::parse_host_port(text);
  if (!hp) {
    return R::failure(std::string(k_address_form) +
                      " such as redis.redis.svc.cluster.local:6379 (IPv6 in brackets: [fd00::1]:6379; port 1-65535)");
  }
  return hp;
}

bool redis_address_uses_tls(std::string_view text) { return text.starts_with("rediss://"); }

std::string check_tls_path(std::string_view text) {
  if (text.empty() || text.front() != '/' || text.size() > 4096 || has_control(text)) {
    return "an absolute file path";
  }
  return "";
}

std::string check_tls_server_name(std::string_view text) {
  if (net::is_ip_literal(text) || net::is_dns_subdomain(text)) {
    return "";
  }
  return "a DNS name or an IP address that the Redis server's certificate carries";
}

std::string password_in_redis_url(std::string_view text) {
  const std::size_t scheme = text.find("://");
  text.remove_prefix(scheme == std::string_view::npos ? 0 : scheme + 3);
  const std::size_t at = text.rfind('@');
  if (at == std::string_view::npos) {
    return "";
  }
  const std::string_view userinfo = text.substr(0, at);
  const std::size_t colon = userinfo.find(':');
  return std::string(colon == std::string_view::npos ? userinfo : userinfo.substr(colon + 1));
}

std::string check_redis_username(std::string_view text) {
  if (text.empty() || text.size() > k_max_username || has_control(text) || text.find(' ') != std::string_view::npos) {
    return "a Redis ACL user name: 1-256 bytes, no spaces or control characters";
  }
  return "";
}

std::string check_redis_password(std::string_view text) {
  if (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    return "a password without a trailing newline (was the Secret created from a file written by echo? use "
           "kubectl create secret generic --from-literal, or printf)";
  }
  if (text.empty() || text.size() > k_max_password || has_control(text)) {
    return "a Redis password: 1-4096 bytes, no control characters";
  }
  return "";
}

std::string check_storage_namespace(std::string_view text) {
  if (text.empty() || text.size() > k_max_namespace || has_control(text) || text.front() == ' ' ||
      text.back() == ' ') {
    return "a storage namespace: 1-256 bytes, no control characters, no leading or trailing space";
  }
  // Ray's GCS aborts at start on one (RedisStoreClient: RAY_CHECK "Storage namespace (…) shouldn't
  // contain @", in ray 2.9.3 and 2.60.0 alike): '@' separates the namespace from the table in its keys.
  if (text.find('@') != std::string_view::npos) {
    return "a storage namespace without '@' (Ray's GCS refuses one and aborts: '@' separates the namespace from "
           "the table in its Redis keys)";
  }
  return "";
}

}  // namespace launcher
