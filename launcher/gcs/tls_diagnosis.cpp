#include "gcs/gcs_client.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <memory>

#include "net/dns_lookup.hpp"
#include "net/host_port.hpp"
#include "net/tcp_connect.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

// A look of our own costs at most this; it runs only after a failed handshake.
constexpr std::chrono::milliseconds k_look_timeout{500};

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct SslFree {
  void operator()(SSL* s) const { SSL_free(s); }
};

// What our own handshake with the server showed.
struct Look {
  enum class Kind { unknown, plaintext, speaks_tls, server_not_verified, we_were_refused };
  Kind kind = Kind::unknown;
  std::string detail;  // OpenSSL's reason: "certificate has expired", "tlsv1 alert unknown ca"
  long verify = 0;     // server_not_verified: X509_V_ERR_*
};

// Whether a certificate is outside its validity period now: "" when it is inside (or cannot be
// read), else "expired on …" or "not valid until …" (its own dates, as OpenSSL prints them).
std::string out_of_dates(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
  if (!cert) {
    return "";
  }
  const auto when = [](const ASN1_TIME* t) {
    std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
    char* data = nullptr;
    if (!out || ASN1_TIME_print(out.get(), t) != 1) {
      return std::string("?");
    }
    const long n = BIO_get_mem_data(out.get(), &data);
    return std::string(data, static_cast<std::size_t>(n));
  };
  if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) < 0) {
    return "expired on " + when(X509_get0_notAfter(cert.get()));
  }
  if (X509_cmp_current_time(X509_get0_notBefore(cert.get())) > 0) {
    return "not valid until " + when(X509_get0_notBefore(cert.get())) + " (is this node's clock behind?)";
  }
  return "";
}

bool contains(const std::string& text, const char* what) {
  return text.find(what) != std::string::npos;
}

// OpenSSL writes with write(2): a server that already closed would raise SIGPIPE, whose default
// action ends the process. Blocked on this thread while the look lasts, and a pending one taken
// back, so that neither this process nor its children see a changed disposition.
class NoSigpipe {
 public:
  NoSigpipe() {
    sigemptyset(&m_pipe);
    sigaddset(&m_pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &m_pipe, &m_old);
  }
  ~NoSigpipe() {
    const timespec zero{0, 0};
    while (sigtimedwait(&m_pipe, nullptr, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
  }
  NoSigpipe(const NoSigpipe&) = delete;
  NoSigpipe& operator=(const NoSigpipe&) = delete;

 private:
  sigset_t m_pipe{};
  sigset_t m_old{};
};

// "ipv4:127.0.0.1:6379" and "host:6379" alike.
std::optional<net::HostPort> address_of(std::string target) {
  for (const char* scheme : {"ipv4:", "ipv6:", "dns:///", "dns:"}) {
    if (target.starts_with(scheme)) {
      target.erase(0, std::string_view(scheme).size());
    }
  }
  const auto hp = net::parse_host_port(target);
  return hp ? std::optional<net::HostPort>(hp.value()) : std::nullopt;
}

// Adds the PEM certificates of `pem` to `ctx`'s trust store.
void trust(SSL_CTX* ctx, const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), x);
    X509_free(x);
  }
  ERR_clear_error();
}

// Presents the pod's certificate chain and key, as gRPC does with the same PEM.
void present(SSL_CTX* ctx, const TlsCredentials& tls) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(tls.cert_pem.data(), static_cast<int>(tls.cert_pem.size())), BIO_free);
  bool first = true;
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (first) {
      SSL_CTX_use_certificate(ctx, x);
      X509_free(x);
      first = false;
    } else {
      SSL_CTX_add_extra_chain_cert(ctx, x);  // takes ownership
    }
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(tls.key_pem.data(), static_cast<int>(tls.key_pem.size())), BIO_free);
  if (EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr)) {
    SSL_CTX_use_PrivateKey(ctx, key);
    EVP_PKEY_free(key);
  }
  ERR_clear_error();
}

// A handshake like gRPC's (ALPN h2, the server verified against the name or IP dialled, our
// certificate presented when TLS is on), then, since TLS 1.3 servers refuse a client certificate
// only after the client thinks the handshake is done, one read for the server's verdict.
Look look(const net::HostPort& address, const TlsCredentials* tls) {
  std::string ip = address.host;
  if (!net::is_ip_literal(ip)) {
    const auto ips = net::resolve_host(ip, k_look_timeout);
    if (!ips || ips->empty()) {
      return {};
    }
    ip = ips->front();
  }
  auto fd = net::tcp_connect(ip, address.port, k_look_timeout);
  if (!fd) {
    return {};
  }
  const NoSigpipe no_sigpipe;
  const timeval tv{0, static_cast<suseconds_t>(k_look_timeout.count() * 1000)};
  setsockopt(fd->get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd->get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  std::unique_ptr<SSL_CTX, CtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) {
    return {};
  }
  static constexpr unsigned char k_alpn[] = {2, 'h', '2'};
  SSL_CTX_set_alpn_protos(ctx.get(), k_alpn, sizeof(k_alpn));
  if (tls != nullptr) {
    trust(ctx.get(), tls->ca_pem);
    present(ctx.get(), *tls);
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  }
  std::unique_ptr<SSL, SslFree> ssl(SSL_new(ctx.get()));
  SSL_set_fd(ssl.get(), fd->get());
  if (net::is_ip_literal(address.host)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), address.host.c_str());
  } else {
    // SSL_set_tlsext_host_name, without its C cast: the name for SNI.
    SSL_ctrl(ssl.get(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(address.host.c_str()));
    SSL_set1_host(ssl.get(), address.host.c_str());
  }
  ERR_clear_error();
  const auto reason = [] {
    const unsigned long e = ERR_peek_last_error();
    const char* text = e != 0 ? ERR_reason_error_string(e) : nullptr;
    return std::string(text != nullptr ? text : "");
  };
  if (SSL_connect(ssl.get()) != 1) {
    if (const long v = SSL_get_verify_result(ssl.get()); tls != nullptr && v != X509_V_OK) {
      return {Look::Kind::server_not_verified, X509_verify_cert_error_string(v), v};
    }
    const std::string why = reason();
    ERR_clear_error();
    if (contains(why, "wrong version number") || contains(why, "packet length too long") ||
        contains(why, "record layer failure") || contains(why, "http request")) {
      return {Look::Kind::plaintext, why};
    }
    if (contains(why, "alert")) {
      return {tls != nullptr ? Look::Kind::we_were_refused : Look::Kind::speaks_tls, why};
    }
    return {};
  }
  if (tls == nullptr) {
    return {Look::Kind::speaks_tls, ""};
  }
  static constexpr char k_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  char byte = 0;
  if (SSL_write(ssl.get(), k_preface, static_cast<int>(sizeof(k_preface) - 1)) <= 0) {
    const std::string why = reason();
    ERR_clear_error();
    return contains(why, "alert") ? Look{Look::Kind::we_were_refused, why} : Look{};
  }
  const int got = SSL_read(ssl.get(), &byte, 1);
  if (got == 1) {
    return {};  // the server talks to us (an HTTP/2 SETTINGS frame): the handshake is not the problem
  }
  const int error = SSL_get_error(ssl.get(), got);
  const std::string why = reason();
  ERR_clear_error();
  if (contains(why, "alert")) {
    return {Look::Kind::we_were_refused, why};
  }
  // A gRPC server sends its SETTINGS as soon as the handshake is done; one that hangs up at once
  // without a word (gRPC's servers send no alert) did not accept the client certificate.
  // (OpenSSL 3 reports an EOF without close_notify as an error, "unexpected eof while reading".)
  const bool eof = error == SSL_ERROR_ZERO_RETURN || contains(why, "unexpected eof") ||
                   (error == SSL_ERROR_SYSCALL && errno != EAGAIN && errno != EWOULDBLOCK);
  return eof ? Look{Look::Kind::we_were_refused, "the connection was closed right after the handshake"} : Look{};
}

std::string file(const TlsFile& f) {
  return describe(f);
}

}  // namespace

std::string diagnose_tls_failure(const RpcError& error, const std::string& target, const TlsCredentials* tls) {
  // Only a connection that was made and then failed: refused connections, DNS failures and
  // deadlines heal by waiting.
  if (error.grpc_code != 14) {
    return "";
  }
  const std::string& m = error.message;
  const auto address = address_of(target);
  if (!address) {
    return "";
  }
  const std::string where = address->text();
  if (tls != nullptr && contains(m, "Peer name ") && contains(m, "is not in peer certificate")) {
    const std::string san = (net::is_ip_literal(address->host) ? "IP:" : "DNS:") + address->host;
    return "TLS handshake with " + where + " failed: the server's certificate does not name " + address->host +
           ", the address dialled (add " + san + " to its subjectAltName; raylaunch's probes dial 127.0.0.1)";
  }
  const bool handshake = contains(m, "Ssl handshake failed") || contains(m, "Handshake failed");
  const bool closed = contains(m, "Socket closed") || contains(m, "Connection reset by peer") ||
                      contains(m, "Broken pipe") || contains(m, "End of TCP stream");
  if (!handshake && !closed) {
    return "";
  }
  const Look seen = look(*address, tls);
  switch (seen.kind) {
    case Look::Kind::server_not_verified:
      // A signature is not a date: an expired certificate is not one "not signed by the CA".
      if (seen.verify == X509_V_ERR_CERT_HAS_EXPIRED || seen.verify == X509_V_ERR_CERT_NOT_YET_VALID) {
        return "TLS handshake with " + where + " failed: the server's certificate (or one of its chain) is " +
               (seen.verify == X509_V_ERR_CERT_HAS_EXPIRED ? "expired" : "not valid yet (is a clock wrong?)") + " (" +
               seen.detail + "): renew it where that pod's Ray starts";
      }
      return "TLS handshake with " + where + " failed: the server's certificate does not verify against " +
             file(tls->files.ca) + " (" + seen.detail + "): every Ray pod's certificate must be signed by that CA";
    case Look::Kind::we_were_refused:
      if (const std::string dates = out_of_dates(tls->cert_pem); !dates.empty()) {
        return "TLS handshake with " + where + " failed: the server refused this pod's certificate " +
               file(tls->files.cert) + ": it " + dates + " (renew it: RAY_TLS_SERVER_CERT)";
      }
      if (contains(seen.detail, "certificate expired")) {
        return "TLS handshake with " + where + " failed: the server refused this pod's certificate " +
               file(tls->files.cert) + " as expired (" + seen.detail + "; renew it, or check this node's clock)";
      }
      return "TLS handshake with " + where + " failed: the server refused this pod's certificate " +
             file(tls->files.cert) + " (" + seen.detail +
             "): it must be signed by the CA in the server's RAY_TLS_CA_CERT";
    case Look::Kind::plaintext:
      if (tls != nullptr) {
        return "TLS handshake with " + where +
               " failed: the server speaks plaintext, not TLS (set RAY_USE_TLS=1 "
               "where Ray starts too, or turn RAY_USE_TLS off here)";
      }
      return "";
    case Look::Kind::speaks_tls:
      if (tls == nullptr) {
        return "the server at " + where +
               " requires TLS and this client speaks plaintext (set RAY_USE_TLS=1, "
               "RAY_TLS_SERVER_CERT, RAY_TLS_SERVER_KEY and RAY_TLS_CA_CERT as for Ray)";
      }
      return "";
    case Look::Kind::unknown:
      break;
  }
  if (tls != nullptr && contains(m, "certificate verify failed")) {
    return "TLS handshake with " + where + " failed: the server's certificate does not verify against " +
           file(tls->files.ca);
  }
  if (tls != nullptr && contains(m, "wrong version number")) {
    return "TLS handshake with " + where +
           " failed: the server does not speak TLS (set RAY_USE_TLS=1 where Ray "
           "starts too, or turn RAY_USE_TLS off here)";
  }
  return "";
}

}  // namespace launcher::gcs
