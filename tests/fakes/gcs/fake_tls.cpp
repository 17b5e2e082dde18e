// FAKE GCS, for tests only: Ray's TLS settings for the fake's servers and clients (fake_tls.hpp).
#include "fake_tls.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_args.hpp"

namespace fake {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string read_file(const char* variable) {
  const std::string path = env(variable);
  std::ifstream in(path);
  if (path.empty() || !in) {
    std::cerr << "fake_gcs: RAY_USE_TLS is on but " << variable << "=" << path << " cannot be read\n";
    std::exit(2);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

bool tls_on(const std::vector<std::string>& args) {
  std::string use = env("RAY_USE_TLS");
  std::transform(use.begin(), use.end(), use.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return has(args, "--tls-from-env") && (use == "1" || use == "true");
}

std::shared_ptr<grpc::ServerCredentials> server_credentials(const std::vector<std::string>& args) {
  if (!tls_on(args)) {
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions options(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = read_file("RAY_TLS_CA_CERT");
  options.pem_key_cert_pairs.push_back({read_file("RAY_TLS_SERVER_KEY"), read_file("RAY_TLS_SERVER_CERT")});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const std::vector<std::string>& args) {
  if (!tls_on(args)) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = read_file("RAY_TLS_CA_CERT");
  options.pem_private_key = read_file("RAY_TLS_SERVER_KEY");
  options.pem_cert_chain = read_file("RAY_TLS_SERVER_CERT");
  return grpc::SslCredentials(options);
}

}  // namespace fake
