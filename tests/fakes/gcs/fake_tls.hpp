#pragma once
// FAKE GCS, for tests only: Ray's TLS for the fake's servers and clients, configured as Ray
// configures its own (ray-gcs-wire.md §1): RAY_USE_TLS on ("1" or "true", any case: RayConfig's
// bool), then RAY_TLS_SERVER_CERT, RAY_TLS_SERVER_KEY, RAY_TLS_CA_CERT. Servers require and
// verify a client certificate (grpc_server.cc); clients present the same certificate and key and
// verify the server against the CA (grpc_client.cc). Only modes given --tls-from-env read it.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

namespace fake {

// Off unless `args` has --tls-from-env and RAY_USE_TLS is on. Exits 2 with a message when TLS is
// on and a file cannot be read (Ray's processes fail to start then, too).
std::shared_ptr<grpc::ServerCredentials> server_credentials(const std::vector<std::string>& args);
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const std::vector<std::string>& args);
bool tls_on(const std::vector<std::string>& args);

}  // namespace fake
