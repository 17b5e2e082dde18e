// FAKE GCS's client modes, for tests only (each also takes --tls-from-env, fake_tls.hpp):
//   fake_gcs ping  --address HOST:PORT [--timeout-ms N] [--token-from-env]
//       one GetClusterId, what Ray's GcsClient sends first when it connects; exit 0 or 1
//   fake_gcs nodes --address HOST:PORT [--token-from-env] [--select-name NAME]
//       GetAllNodeInfo (empty request; with --select-name, node_selectors = [NAME] only, what
//       raylaunch's readiness probe sent to every version before it learnt the version), one line
//       per node (describe_node); exit 0 or 1
//   fake_gcs send-v236 --address HOST:PORT
//       GetAllNodeInfo in the 2.36-2.48 layout (limit=1): a client the strict mode must reject
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli_args.hpp"
#include "fake_control.pb.h"
#include "fake_gcs.hpp"
#include "fake_tls.hpp"

namespace fake {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

std::unique_ptr<ray::rpc::NodeInfoGcsService::Stub> stub_for(const std::vector<std::string>& args) {
  grpc::ChannelArguments channel_args;
  channel_args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  channel_args.SetMaxReceiveMessageSize(512 * 1024 * 1024);
  return ray::rpc::NodeInfoGcsService::NewStub(
      grpc::CreateCustomChannel(flag(args, "--address", ""), channel_credentials(args), channel_args));
}

void prepare(grpc::ClientContext& context, const std::vector<std::string>& args, int timeout_ms) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  if (has(args, "--token-from-env")) {
    if (const std::string token = token_from_env(); !token.empty()) {
      context.AddMetadata("authorization", "Bearer " + token);
    }
  }
}

}  // namespace

std::string token_from_env() {
  const char* mode = std::getenv("RAY_AUTH_MODE");
  if (mode == nullptr || std::string(mode) != "token") {
    return "";
  }
  if (const char* t = std::getenv("RAY_AUTH_TOKEN"); t != nullptr && *t != '\0') {
    return trimmed(t);
  }
  std::string path;
  if (const char* p = std::getenv("RAY_AUTH_TOKEN_PATH"); p != nullptr && *p != '\0') {
    path = p;
  } else if (const char* home = std::getenv("HOME"); home != nullptr) {
    path = std::string(home) + "/.ray/auth_token";
  }
  std::ifstream in(path);
  std::string token;
  std::getline(in, token);  // a token is one line
  return trimmed(token);
}

int ping_main(const std::vector<std::string>& args) {
  grpc::ClientContext context;
  prepare(context, args, std::stoi(flag(args, "--timeout-ms", "1000")));
  ray::rpc::GetClusterIdReply reply;
  const grpc::Status s = stub_for(args)->GetClusterId(&context, {}, &reply);
  if (!s.ok()) {
    std::cout << "GCS at " << flag(args, "--address", "") << " did not answer: " << s.error_message() << "\n";
    return 1;
  }
  std::cout << "ok cluster_id=" << to_hex(reply.cluster_id()) << "\n";
  return 0;
}

int nodes_main(const std::vector<std::string>& args) {
  grpc::ClientContext context;
  prepare(context, args, std::stoi(flag(args, "--timeout-ms", "5000")));
  ray::rpc::GetAllNodeInfoRequest request;
  if (has(args, "--select-name")) {
    request.add_node_selectors()->set_node_name(flag(args, "--select-name", ""));
  }
  ray::rpc::GetAllNodeInfoReply reply;
  const grpc::Status s = stub_for(args)->GetAllNodeInfo(&context, request, &reply);
  if (!s.ok() || reply.status().code() != 0) {
    std::cerr << "fake_gcs nodes: " << (s.ok() ? reply.status().message() : s.error_message()) << "\n";
    return 1;
  }
  for (const ray::rpc::GcsNodeInfo& n : reply.node_info_list()) {
    std::cout << describe_node(n) << "\n";
  }
  return 0;
}

// What a client built against Ray 2.36-2.48's proto sends when it sets `limit`.
int send_v236_main(const std::vector<std::string>& args) {
  raylaunch::test::GetAllNodeInfoRequestV236 old_layout;
  old_layout.set_limit(1);
  ray::rpc::GetAllNodeInfoRequest request;
  request.ParseFromString(old_layout.SerializeAsString());  // same bytes, the fake's request type
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  ray::rpc::GetAllNodeInfoReply reply;
  const grpc::Status status = stub_for(args)->GetAllNodeInfo(&context, request, &reply);
  std::cout << "code=" << static_cast<int>(status.error_code()) << " nodes=" << reply.node_info_list_size() << " "
            << status.error_message() << "\n";
  return 0;
}

}  // namespace fake
