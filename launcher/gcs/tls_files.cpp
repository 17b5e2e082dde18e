#include "gcs/tls_files.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "util/host_fs.hpp"
#include "util/strings.hpp"

namespace launcher::gcs {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

BioPtr memory_bio(const std::string& text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// The certificates in `pem`, in order; none when it holds no parsable certificate.
std::vector<X509Ptr> certificates(const std::string& pem) {
  std::vector<X509Ptr> out;
  const BioPtr bio = memory_bio(pem);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    out.emplace_back(x);
  }
  ERR_clear_error();  // the end of the input is reported as an error, too
  return out;
}

// A private key in `pem` (an encrypted one cannot be used: Ray passes no pass phrase either).
KeyPtr private_key(const std::string& pem) {
  const BioPtr bio = memory_bio(pem);
  // A null pass-phrase callback would prompt on the terminal for an encrypted key; this one
  // refuses at once.
  auto no_passphrase = [](char*, int, int, void*) -> int { return -1; };
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  ERR_clear_error();
  return key;
}

util::Result<std::string> read_pem(const TlsFile& file) {
  using R = util::Result<std::string>;
  if (file.path.empty()) {
    return R::failure(file.source +
                      " is not set (RAY_USE_TLS is on: Ray's TLS needs RAY_TLS_SERVER_CERT, "
                      "RAY_TLS_SERVER_KEY and RAY_TLS_CA_CERT)");
  }
  std::string why;
  auto text = util::read_small_file(file.path, k_max_pem_bytes, &why);
  if (!text) {
    return R::failure(describe(file) + ": cannot read the file: " + why + " (mount the TLS Secret there)");
  }
  return std::move(*text);
}

}  // namespace

std::string describe(const TlsFile& file) {
  return file.source + "=" + util::printable(file.path);
}

util::Result<std::shared_ptr<const TlsCredentials>> load_tls_credentials(const TlsFiles& files) {
  using R = util::Result<std::shared_ptr<const TlsCredentials>>;
  auto creds = std::make_shared<TlsCredentials>();
  creds->files = files;
  for (auto [file, out] : {std::pair{&files.cert, &creds->cert_pem}, std::pair{&files.key, &creds->key_pem},
                           std::pair{&files.ca, &creds->ca_pem}}) {
    auto text = read_pem(*file);
    if (!text) {
      return R::failure(text.error());
    }
    *out = std::move(text).value();
  }
  const auto chain = certificates(creds->cert_pem);
  if (chain.empty()) {
    return R::failure(describe(files.cert) +
                      ": no PEM certificate in the file (expected \"-----BEGIN "
                      "CERTIFICATE-----\": the pod's certificate, signed by the CA)");
  }
  if (certificates(creds->ca_pem).empty()) {
    return R::failure(describe(files.ca) +
                      ": no PEM certificate in the file (expected the CA certificate, "
                      "\"-----BEGIN CERTIFICATE-----\")");
  }
  const KeyPtr key = private_key(creds->key_pem);
  if (!key) {
    return R::failure(describe(files.key) +
                      ": no usable PEM private key in the file (expected an unencrypted "
                      "\"-----BEGIN PRIVATE KEY-----\" or \"-----BEGIN RSA/EC PRIVATE "
                      "KEY-----\")");
  }
  if (X509_check_private_key(chain.front().get(), key.get()) != 1) {
    ERR_clear_error();
    return R::failure(describe(files.key) + ": the key does not belong to the certificate in " + describe(files.cert) +
                      " (expected the key the certificate was issued for)");
  }
  return std::shared_ptr<const TlsCredentials>(std::move(creds));
}

}  // namespace launcher::gcs
