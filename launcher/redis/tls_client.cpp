#include "redis/tls_client.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <vector>

#include "net/host_port.hpp"
#include "util/host_fs.hpp"
#include "util/strings.hpp"

namespace launcher::redis {

namespace {

using Kind = RedisError::Kind;

// The most a PEM file may be: a CA bundle of ~150 roots is ~220 KB.
constexpr std::size_t k_max_pem_bytes = 1 << 20;

struct Free {
  void operator()(BIO* b) const { BIO_free(b); }
  void operator()(X509* x) const { X509_free(x); }
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
template <typename T>
using Owned = std::unique_ptr<T, Free>;

// A pass-phrase callback that refuses at once: the default one would prompt on a terminal for
// an encrypted key (Ray passes no pass phrase either).
int no_passphrase(char*, int, int, void*) { return -1; }

util::Result<std::string> read_pem(const TlsSetting& file) {
  std::string why;
  auto text = util::read_small_file(file.value, k_max_pem_bytes, &why);
  if (!text) {
    return util::Result<std::string>::failure(file.describe() + ": cannot read the file: " + why +
                                              " (mount the Secret with the TLS files there)");
  }
  return std::move(*text);
}

std::vector<Owned<X509>> certificates(const std::string& pem) {
  std::vector<Owned<X509>> out;
  const Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr)) {
    out.emplace_back(x);
  }
  ERR_clear_error();  // the end of the input is reported as an error, too
  return out;
}

std::string load_ca(SSL_CTX* ctx, const TlsOptions& o) {
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  if (o.ca_cert.set()) {
    auto pem = read_pem(o.ca_cert);
    if (!pem) {
      return pem.error();
    }
    const auto cas = certificates(pem.value());
    if (cas.empty()) {
      return o.ca_cert.describe() + ": no PEM certificate in the file (expected the CA that signed the Redis "
                                    "server's certificate, \"-----BEGIN CERTIFICATE-----\")";
    }
    for (const auto& ca : cas) {
      X509_STORE_add_cert(store, ca.get());  // a duplicate is harmless
    }
    ERR_clear_error();
  }
  if (o.ca_path.set()) {
    struct stat st {};
    if (::stat(o.ca_path.value.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return o.ca_path.describe() + ": not a directory (expected a directory of CA certificates named by hash, "
                                    "as `openssl rehash` makes it)";
    }
    if (X509_STORE_load_path(store, o.ca_path.value.c_str()) != 1) {
      ERR_clear_error();
      return o.ca_path.describe() + ": OpenSSL cannot use it as a CA directory";
    }
  }
  if (!o.ca_cert.set() && !o.ca_path.set()) {
    // As hiredis does for Ray's GCS: OpenSSL's default store (its OPENSSLDIR, or SSL_CERT_FILE
    // and SSL_CERT_DIR). Empty in the raylaunch image (FROM scratch): verification then fails
    // with a line that names RAY_REDIS_CA_CERT.
    SSL_CTX_set_default_verify_paths(ctx);
    ERR_clear_error();
  }
  return "";
}

std::string load_client_identity(SSL_CTX* ctx, const TlsOptions& o) {
  if (!o.client_cert.set() && !o.client_key.set()) {
    return "";
  }
  if (o.client_cert.set() != o.client_key.set()) {
    const TlsSetting& given = o.client_cert.set() ? o.client_cert : o.client_key;
    return given.describe() + " is set without its " +
           (o.client_cert.set() ? "key (RAY_REDIS_CLIENT_KEY)" : "certificate (RAY_REDIS_CLIENT_CERT)") +
           ": a client certificate needs both";
  }
  auto cert_pem = read_pem(o.client_cert);
  if (!cert_pem) {
    return cert_pem.error();
  }
  auto key_pem = read_pem(o.client_key);
  if (!key_pem) {
    return key_pem.error();
  }
  auto chain = certificates(cert_pem.value());
  if (chain.empty()) {
    return o.client_cert.describe() + ": no PEM certificate in the file (expected \"-----BEGIN CERTIFICATE-----\")";
  }
  const Owned<BIO> bio(BIO_new_mem_buf(key_pem.value().data(), static_cast<int>(key_pem.value().size())));
  const Owned<EVP_PKEY> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  ERR_clear_error();
  if (!key) {
    return o.client_key.describe() + ": no usable PEM private key in the file (expected an unencrypted "
                                     "\"-----BEGIN PRIVATE KEY-----\" or \"-----BEGIN RSA/EC PRIVATE KEY-----\")";
  }
  if (SSL_CTX_use_certificate(ctx, chain.front().get()) != 1 || SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return o.client_key.describe() + ": the key does not belong to the certificate in " + o.client_cert.describe() +
           " (expected the key the certificate was issued for)";
  }
  for (std::size_t i = 1; i < chain.size(); ++i) {
    SSL_CTX_add1_chain_cert(ctx, chain[i].get());  // intermediates, sent with the certificate
  }
  return "";
}

// "DNS:redis.example, IP:10.0.0.5": what the certificate is for, to show against the name.
std::string names_in(X509* cert) {
  std::string out;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    std::string one;
    if (n->type == GEN_DNS) {
      one = "DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)),
                                 static_cast<std::size_t>(ASN1_STRING_length(n->d.dNSName)));
    } else if (n->type == GEN_IPADD && ASN1_STRING_length(n->d.iPAddress) == 4) {
      const unsigned char* b = ASN1_STRING_get0_data(n->d.iPAddress);
      one = "IP:" + std::to_string(b[0]) + "." + std::to_string(b[1]) + "." + std::to_string(b[2]) + "." +
            std::to_string(b[3]);
    } else if (n->type == GEN_IPADD) {
      one = "IP:(IPv6)";
    }
    if (!one.empty()) {
      out += (out.empty() ? "" : ", ") + util::printable(one, 120);
    }
    if (out.size() > 400) {
      out += ", ...";
      break;
    }
  }
  GENERAL_NAMES_free(names);
  return out.empty() ? "no subject alternative name" : out;
}

// Keeps the server's own certificate for failure(): after a verification failure OpenSSL
// drops the peer's chain, but the line must say which names the certificate does carry.
int keep_leaf(int ok, X509_STORE_CTX* store) {
  auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  X509* cert = X509_STORE_CTX_get_current_cert(store);
  if (ssl != nullptr && cert != nullptr && X509_STORE_CTX_get_error_depth(store) == 0 &&
      SSL_get_app_data(ssl) == nullptr && X509_up_ref(cert) == 1) {
    SSL_set_app_data(ssl, cert);
  }
  return ok;
}

}  // namespace

std::string TlsSetting::describe() const { return source + "=" + util::printable(value, 200); }

TlsClient::TlsClient(SSL_CTX* ctx, TlsOptions options) : m_ctx(ctx), m_options(std::move(options)) {}

TlsClient::~TlsClient() { SSL_CTX_free(m_ctx); }

util::Result<std::shared_ptr<const TlsClient>> TlsClient::load(const TlsOptions& options) {
  using R = util::Result<std::shared_ptr<const TlsClient>>;
  Owned<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) {
    ERR_clear_error();
    return R::failure("cannot create a TLS context (OpenSSL)");
  }
  // ElastiCache and Redis 6+ speak TLS 1.2 and 1.3; nothing older is safe.
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (std::string err = load_ca(ctx.get(), options); !err.empty()) {
    return R::failure(err);
  }
  if (std::string err = load_client_identity(ctx.get(), options); !err.empty()) {
    return R::failure(err);
  }
  if (!options.server_name.set()) {
    return R::failure("no server name to verify the Redis certificate against (set RAY_REDIS_SERVER_NAME)");
  }
  return std::shared_ptr<const TlsClient>(new TlsClient(ctx.release(), options));
}

SSL* TlsClient::new_session() const {
  SSL* ssl = SSL_new(m_ctx);
  if (ssl == nullptr) {
    ERR_clear_error();
    return nullptr;
  }
  SSL_set_verify(ssl, SSL_VERIFY_PEER, keep_leaf);
  const std::string& name = m_options.server_name.value;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  if (net::is_ip_literal(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());  // no SNI for an address (RFC 6066)
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
    // SSL_set_tlsext_host_name, without the macro's C cast.
    SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, const_cast<char*>(name.c_str()));
  }
  return ssl;
}

void TlsClient::free_session(SSL* ssl) {
  if (ssl != nullptr) {
    X509_free(static_cast<X509*>(SSL_get_app_data(ssl)));
    SSL_free(ssl);
  }
}

RedisError TlsClient::failure(SSL* ssl, const std::string& peer, int ssl_error, bool handshake) const {
  const unsigned long first = ERR_peek_error();
  const int reason = ERR_GET_REASON(first);
  const char* reason_text = first != 0 ? ERR_reason_error_string(first) : nullptr;
  const std::string said = reason_text != nullptr ? reason_text : "protocol error";
  ERR_clear_error();
  const std::string where = "TLS with " + peer + ": ";
  const long verify = SSL_get_verify_result(ssl);
  if (handshake && ssl_error == SSL_ERROR_SSL && verify != X509_V_OK) {
    const std::string why = X509_verify_cert_error_string(verify);
    if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH) {
      auto* cert = static_cast<X509*>(SSL_get_app_data(ssl));
      return {Kind::tls, where + "its certificate is not for " + util::printable(m_options.server_name.value, 200) +
                             " (" + m_options.server_name.source + "); it names " +
                             (cert != nullptr ? names_in(cert) : std::string("nothing")) +
                             " (set RAY_REDIS_SERVER_NAME to one of them, or use an address it names)"};
    }
    const std::string cas = m_options.ca_cert.set() || m_options.ca_path.set()
                                ? (m_options.ca_cert.set() ? m_options.ca_cert.describe() : std::string()) +
                                      (m_options.ca_cert.set() && m_options.ca_path.set() ? " or " : "") +
                                      (m_options.ca_path.set() ? m_options.ca_path.describe() : std::string())
                                : std::string("the system's trust store (RAY_REDIS_CA_CERT is not set)");
    if (verify == X509_V_ERR_CERT_HAS_EXPIRED || verify == X509_V_ERR_CERT_NOT_YET_VALID) {
      return {Kind::tls, where + "its certificate does not verify: " + why};
    }
    return {Kind::tls, where + "its certificate is not signed by a CA in " + cas + " (" + why +
                           "; set RAY_REDIS_CA_CERT to the CA that signed it)"};
  }
  if (ssl_error == SSL_ERROR_SSL) {
    if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG ||
        reason == SSL_R_UNEXPECTED_RECORD) {
      return {Kind::tls, where + "the server does not speak TLS (" + said +
                             "): for a plaintext Redis use redis://, not rediss://"};
    }
    if (reason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED ||
        ((reason == SSL_R_SSLV3_ALERT_BAD_CERTIFICATE || reason == SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE ||
          reason == SSL_R_TLSV1_ALERT_UNKNOWN_CA) &&
         !m_options.client_cert.set())) {
      return {Kind::tls, where + "the server requires a client certificate (set RAY_REDIS_CLIENT_CERT and "
                                 "RAY_REDIS_CLIENT_KEY)"};
    }
    if (reason == SSL_R_SSLV3_ALERT_BAD_CERTIFICATE || reason == SSL_R_TLSV1_ALERT_UNKNOWN_CA ||
        reason == SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN) {
      return {Kind::tls, where + "the server rejected the client certificate " + m_options.client_cert.describe() +
                             " (is it signed by a CA the server trusts?)"};
    }
    return {Kind::tls, where + (handshake ? "the handshake failed: " : "") + said};
  }
  return {Kind::closed, peer + " closed the connection" + (handshake ? " during the TLS handshake" : "")};
}

}  // namespace launcher::redis
