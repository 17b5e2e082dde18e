#pragma once
#include <memory>
#include <string>

#include "redis/redis_error.hpp"
#include "util/result.hpp"

// OpenSSL's types, declared as <openssl/types.h> does, so that only tls_client.cpp and
// channel.cpp include OpenSSL.
struct ssl_ctx_st;
struct ssl_st;

namespace launcher::redis {

// One Redis TLS setting as the user gave it: the value ("" = not set) and where it came from
// ("RAY_REDIS_CA_CERT" or "--redis-ca-cert"), so that an error names the setting to fix.
struct TlsSetting {
  std::string value;
  std::string source;

  bool set() const { return !value.empty(); }
  std::string describe() const;  // "RAY_REDIS_CA_CERT=/etc/redis-tls/ca.crt" (escaped, one line)
};

// Redis over TLS (rediss://, ElastiCache in-transit encryption), configured by Ray's own
// variables (ray_config_def.h REDIS_CA_CERT, REDIS_CA_PATH, REDIS_CLIENT_CERT,
// REDIS_CLIENT_KEY, REDIS_SERVER_NAME), so one env block configures Ray's GCS and raylaunch.
struct TlsOptions {
  TlsSetting ca_cert;      // PEM file of the CA(s) the server's certificate must chain to
  TlsSetting ca_path;      // a directory of CA certificates named by hash (openssl rehash)
  TlsSetting client_cert;  // PEM certificate chain, for a Redis that asks for one (tls-auth-clients)
  TlsSetting client_key;   // its private key, PEM, unencrypted
  // The name the server's certificate must carry, sent as SNI: RAY_REDIS_SERVER_NAME, else the
  // host of RAY_REDIS_ADDRESS (source "the host of RAY_REDIS_ADDRESS"). A DNS name or an IP.
  TlsSetting server_name;
};

// A checked TLS client configuration (an SSL_CTX), shared by every connection to one Redis.
// The server is always verified: its certificate must chain to the CA (RAY_REDIS_CA_CERT
// and/or RAY_REDIS_CA_PATH, else the system's trust store, as hiredis does for Ray) and carry
// the server name. Unlike Ray's hiredis, raylaunch checks the name too.
class TlsClient {
 public:
  // Reads and checks the files as far as can be done without a server: each readable, PEM
  // that OpenSSL parses, the client certificate and key given together and matching. What
  // fails is one line naming the setting, never a key's contents:
  //   "RAY_REDIS_CA_CERT=/etc/redis-tls/ca.crt: no PEM certificate in the file (...)"
  static util::Result<std::shared_ptr<const TlsClient>> load(const TlsOptions& options);

  ~TlsClient();
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  // A new session for one connection, with SNI and the name to verify set; null when OpenSSL
  // cannot allocate one. The caller frees it with free_session().
  ssl_st* new_session() const;
  static void free_session(ssl_st* ssl);

  // Why a handshake or an exchange on `ssl` with `peer` ("10.0.0.5:6379") failed, from the
  // verification result and OpenSSL's error queue (which it clears). A certificate that does
  // not verify, a server that does not speak TLS or that refuses our client certificate is
  // Kind::tls (will not heal: exit 69 at once); a connection cut mid-way is Kind::closed.
  RedisError failure(ssl_st* ssl, const std::string& peer, int ssl_error, bool handshake) const;

  const TlsOptions& options() const { return m_options; }

 private:
  TlsClient(ssl_ctx_st* ctx, TlsOptions options);

  ssl_ctx_st* m_ctx;
  TlsOptions m_options;
};

}  // namespace launcher::redis
