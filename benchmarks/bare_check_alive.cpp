// Benchmark helper (not a test): the smallest gRPC C++ CheckAlive client, linked statically like
// raylaunch, as the floor a gRPC-based probe can reach on this machine.
//   bench_bare_check_alive HOST:PORT
#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "ray_gcs.grpc.pb.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    return 2;
  }
  auto stub =
      ray::rpc::NodeInfoGcsService::NewStub(grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
  ray::rpc::CheckAliveRequest request;
  ray::rpc::CheckAliveReply reply;
  const grpc::Status status = stub->CheckAlive(&context, request, &reply);
  std::printf("%d %s\n", static_cast<int>(status.error_code()), reply.ray_version().c_str());
  return status.ok() && reply.status().code() == 0 ? 0 : 1;
}
