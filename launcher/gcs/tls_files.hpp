#pragma once
#include <memory>
#include <string>

#include "util/result.hpp"

namespace launcher::gcs {

// One of Ray's TLS files as the user gave it, and the setting that named it ("RAY_TLS_CA_CERT" or
// "--tls-ca-cert"), for error lines.
struct TlsFile {
  std::string path;
  std::string source;
};

// Ray's three TLS settings. Ray's own clients present the server's certificate and key as their
// client certificate (src/ray/rpc/grpc_client.cc, BuildChannel), and so does raylaunch.
struct TlsFiles {
  TlsFile cert;  // RAY_TLS_SERVER_CERT: certificate chain, PEM
  TlsFile key;   // RAY_TLS_SERVER_KEY: its private key, PEM
  TlsFile ca;    // RAY_TLS_CA_CERT: the CA(s) every server certificate must chain to, PEM
};

// The files' contents, read once. `key_pem` is a secret: never logged or printed (only paths are).
struct TlsCredentials {
  std::string cert_pem;
  std::string key_pem;
  std::string ca_pem;
  TlsFiles files;
};

// The most a PEM file may be: a CA bundle of ~150 roots is ~220 KB.
inline constexpr std::size_t k_max_pem_bytes = 1 << 20;

// Reads the three files and checks them as far as can be done without a server: each is set,
// readable, PEM that OpenSSL parses (certificates in `cert` and `ca`, a private key in `key`),
// and the key belongs to the first certificate of `cert`. What fails is one line naming the
// setting and the path, never the contents:
//   "RAY_TLS_SERVER_KEY=/etc/ray/tls/tls.key: cannot read the file: No such file or directory"
util::Result<std::shared_ptr<const TlsCredentials>> load_tls_credentials(const TlsFiles& files);

// "RAY_TLS_CA_CERT=/etc/ray/tls/ca.crt" (the path escaped for one-line output).
std::string describe(const TlsFile& file);

}  // namespace launcher::gcs
