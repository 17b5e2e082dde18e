// FAKE raylet, for tests only (`fake_gcs raylet`). What a real raylet shows the rest of a cluster
// and nothing else:
// - gRPC's default health service on the node-manager port with "<node id hex>" SERVING, as
//   raylet/node_manager.cc registers it; the GCS health-checks exactly that;
// - with --gcs-address: registers itself in that GCS with NodeInfoGcsService.RegisterNode over TCP
//   (as raylet/main.cc does; the GCS may be on another host or network namespace), and on
//   SIGTERM/SIGINT unregisters with EXPECTED_TERMINATION "Received SIGTERM" and exits 0;
// - exits 1 with Ray's message when its GCS stays unreachable for
//   RAY_gcs_rpc_server_reconnect_timeout_s (default 60; gcs_rpc_client.h), which is what ends a
//   worker whose head is gone.
// Fault knob: --die-after-ms N exits 1 after N ms (a raylet crash, for `ray start --block`).
// --tls-from-env: mutual TLS from RAY_USE_TLS / RAY_TLS_* as Ray, for its server and its GCS client.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "cli_args.hpp"
#include "fake_control.grpc.pb.h"
#include "fake_gcs.hpp"
#include "fake_tls.hpp"

namespace fake {

namespace {

// Stands in for the raylet's NodeManagerService: gRPC serves its default health service
// synchronously only when the server has at least one synchronous service.
class NodeManagerPlaceholder final : public raylaunch::test::FakeGcsControl::Service {};

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// The GcsNodeInfo a raylet sends about itself (fields from ray-gcs-wire.md §2.5).
ray::rpc::GcsNodeInfo self_info(const std::vector<std::string>& args, const std::string& node_id_hex, int port) {
  ray::rpc::GcsNodeInfo n;
  const std::string ip = flag(args, "--node-ip", "127.0.0.1");
  const std::string session = flag(args, "--session-dir", "/tmp/ray/session_fake");
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  n.set_node_id(from_hex(node_id_hex));
  n.set_node_manager_address(ip);
  n.set_node_manager_port(port);
  n.set_object_manager_port(std::stoi(flag(args, "--object-manager-port", "0")));
  n.set_raylet_socket_name(session + "/sockets/raylet");
  n.set_object_store_socket_name(session + "/sockets/plasma_store");
  n.set_state(ray::rpc::GcsNodeInfo::ALIVE);
  n.set_node_manager_hostname(host);
  n.set_metrics_export_port(std::stoi(flag(args, "--metrics-export-port", "0")));
  n.set_node_name(flag(args, "--node-name", ip));
  n.set_start_time_ms(now_ms());
  n.set_is_head_node(has(args, "--head"));
  for (const std::string& kv : flags(args, "--resource")) {  // NAME=QUANTITY
    const auto eq = kv.rfind('=');
    (*n.mutable_resources_total())[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
  }
  (*n.mutable_resources_total())["node:" + ip] = 1;
  if (n.is_head_node()) {
    (*n.mutable_resources_total())["node:__internal_head__"] = 1;
  }
  (*n.mutable_labels())["ray.io/node_id"] = node_id_hex;
  for (const std::string& kv : flags(args, "--label")) {  // KEY=VALUE
    const auto eq = kv.find('=');
    (*n.mutable_labels())[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  n.mutable_state_snapshot()->set_state(ray::rpc::NodeSnapshot::IDLE);
  return n;
}

void add_token(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) {
    context.AddMetadata("authorization", "Bearer " + token);
  }
}

}  // namespace

int raylet_main(const std::vector<std::string>& args) {
  // Block the signals handled here before gRPC starts threads, so that only sigtimedwait takes them.
  sigset_t handled;
  sigemptyset(&handled);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGINT);
  pthread_sigmask(SIG_BLOCK, &handled, nullptr);

  grpc::EnableDefaultHealthCheckService(true);
  NodeManagerPlaceholder node_manager;
  grpc::ServerBuilder builder;
  builder.RegisterService(&node_manager);
  int port = 0;
  const std::string listen = flag(args, "--bind", "127.0.0.1") + ":" + flag(args, "--port", "0");
  builder.AddListeningPort(listen, server_credentials(args), &port);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port <= 0) {
    std::cerr << "fake_gcs raylet: cannot listen on " << listen << "\n";
    return 1;
  }
  const std::string node_id = flag(args, "--node-id", std::string(56, 'a'));
  server->GetHealthCheckService()->SetServingStatus(node_id, true);
  if (has(args, "--not-serving")) {
    server->GetHealthCheckService()->SetServingStatus(false);
  }

  const std::string gcs_address = flag(args, "--gcs-address", "");
  const std::string token = has(args, "--token-from-env") ? token_from_env() : "";
  const int reconnect_timeout_s = env_int("RAY_gcs_rpc_server_reconnect_timeout_s", 60);
  std::shared_ptr<grpc::Channel> gcs;
  if (!gcs_address.empty()) {
    grpc::ChannelArguments channel_args;
    channel_args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
    gcs = grpc::CreateCustomChannel(gcs_address, channel_credentials(args), channel_args);
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(reconnect_timeout_s));
    add_token(context, token);
    ray::rpc::RegisterNodeRequest request;
    *request.mutable_node_info() = self_info(args, node_id, port);
    ray::rpc::RegisterNodeReply reply;
    const grpc::Status s = ray::rpc::NodeInfoGcsService::NewStub(gcs)->RegisterNode(&context, request, &reply);
    if (!s.ok() || reply.status().code() != 0) {
      std::cerr << "fake raylet: RegisterNode at " << gcs_address
                << " failed: " << (s.ok() ? reply.status().message() : s.error_message()) << "\n";
      return 1;
    }
    std::cerr << "fake raylet: node " << node_id << " registered at GCS " << gcs_address << "\n";
  }
  write_port_file(flag(args, "--port-file", ""), port);
  std::cerr << "fake_gcs: raylet health service on port " << port << "\n";

  using clock = std::chrono::steady_clock;
  const int die_after_ms = std::stoi(flag(args, "--die-after-ms", "-1"));
  const auto started = clock::now();
  bool gcs_down = false;
  clock::time_point gcs_down_since{};
  for (;;) {
    timespec tick{0, 200'000'000};
    const int sig = sigtimedwait(&handled, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) {
      if (gcs) {
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
        add_token(context, token);
        ray::rpc::UnregisterNodeRequest request;
        request.set_node_id(from_hex(node_id));
        request.mutable_node_death_info()->set_reason(ray::rpc::NodeDeathInfo::EXPECTED_TERMINATION);
        request.mutable_node_death_info()->set_reason_message(sig == SIGTERM ? "Received SIGTERM" : "Received SIGINT");
        ray::rpc::UnregisterNodeReply reply;
        ray::rpc::NodeInfoGcsService::NewStub(gcs)->UnregisterNode(&context, request, &reply);
      }
      server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
      return 0;
    }
    if (die_after_ms >= 0 && clock::now() - started >= std::chrono::milliseconds(die_after_ms)) {
      std::cerr << "fake raylet: FAKE_RAY_DIE_AFTER reached, exiting as if the raylet crashed\n";
      std::_Exit(1);
    }
    if (gcs) {
      // Ray's GCS client watches its channel state, not RPC results (gcs_rpc_client.h).
      const grpc_connectivity_state state = gcs->GetState(true);
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_CONNECTING) {
        if (!gcs_down) {
          gcs_down = true;
          gcs_down_since = clock::now();
        } else if (clock::now() - gcs_down_since >= std::chrono::seconds(reconnect_timeout_s)) {
          std::cerr << "Failed to connect to GCS within " << reconnect_timeout_s
                    << " seconds. GCS may have been killed. It's either GCS is terminated by `ray stop` or is "
                       "killed unexpectedly. If it is killed unexpectedly, see the log file gcs_server.out. The "
                       "program will terminate.\n";
          std::_Exit(1);
        }
      } else {
        gcs_down = false;
      }
    }
  }
}

}  // namespace fake
