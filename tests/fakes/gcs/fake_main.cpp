// FAKE, for tests only. One binary, several roles:
//   fake_gcs serve   --port P|0 --control unix:PATH [--port-file F] [--ray-version 2.9.0]
//                    [--token T | --token-from-env] [--tls-from-env] [--strict-request] [--bind 127.0.0.1]
//                    [--drain busy|idle|reject]   (DrainNode served: fake_drain.hpp)
//                    [--health-check-initial-delay-ms N] [--health-check-period-ms N]
//                    [--health-check-timeout-ms N] [--health-check-failure-threshold N]
//       a fake Ray GCS (NodeInfoGcsService + grpc.health.v1), controlled over a unix socket.
//       Raylets register over TCP (RegisterNode) and are health-checked as Ray does (defaults
//       from RAY_health_check_* in the environment, else Ray's 5000/3000/10000/5).
//       --tls-from-env: mutual TLS from RAY_USE_TLS / RAY_TLS_* as Ray (fake_tls.hpp), for the
//       GCS port and its health checks of raylets (the control socket stays plaintext).
//   fake_gcs ctl     --control unix:PATH COMMAND...   (add, fill, kill, fault, token, stats, nodes, stop,
//                                                     start, restart MS [--wipe], quit)
//   fake_gcs raylet  --port P|0 [--port-file F] [--node-id HEX] [--not-serving] [--bind ADDR]
//                    [--gcs-address HOST:PORT --node-ip IP --node-name N --head ...]
//       a fake raylet (fake_raylet.cpp)
//   fake_gcs ping|nodes|send-v236 --address HOST:PORT ...   clients (fake_clients.cpp)
//   fake_gcs blackhole --port P|0 [--port-file F]   accepts TCP and never answers (no HTTP/2)
//   fake_gcs freeport                               prints a free loopback TCP port
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli_args.hpp"
#include "fake_drain.hpp"
#include "fake_control.grpc.pb.h"
#include "fake_gcs.hpp"
#include "fake_tls.hpp"

namespace fake {
int raylet_main(const std::vector<std::string>& args);
int ping_main(const std::vector<std::string>& args);
int nodes_main(const std::vector<std::string>& args);
int send_v236_main(const std::vector<std::string>& args);
}  // namespace fake

namespace {

using fake::flag;
using fake::has;
using fake::write_port_file;

constexpr int k_max_message = 512 * 1024 * 1024;  // Ray's max_grpc_message_size

// The GCS server's lifecycle: stop/start/restart on request, same port every time.
class GcsServer {
 public:
  GcsServer(fake::FakeGcs& state, std::string bind, int port, std::shared_ptr<grpc::ServerCredentials> credentials,
            grpc::Service* autoscaler)
      : m_state(state), m_bind(std::move(bind)), m_port(port), m_credentials(std::move(credentials)),
        m_autoscaler(autoscaler) {}

  int start() {
    const std::lock_guard lock(m_mutex);
    for (int attempt = 0; attempt < 50 && !m_server; ++attempt) {
      grpc::ServerBuilder builder;
      int selected = 0;
      builder.AddListeningPort(m_bind + ":" + std::to_string(m_port), m_credentials, &selected);
      builder.RegisterService(&m_state);
      if (m_autoscaler != nullptr) {
        builder.RegisterService(m_autoscaler);  // --drain: DrainNode served (Ray 2.9+)
      }
      builder.SetMaxReceiveMessageSize(k_max_message);
      builder.SetMaxSendMessageSize(k_max_message);
      builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // as Ray's GrpcServer: a taken port fails
      m_server = builder.BuildAndStart();
      if (m_server && selected > 0) {
        m_port = selected;
      } else {
        m_server.reset();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // port still held by the old server
      }
    }
    if (m_server) {
      m_state.resume_health_checks();
    }
    return m_server ? m_port : -1;
  }

  void stop() {
    const std::lock_guard lock(m_mutex);
    if (m_server) {
      m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
      m_server->Wait();
      m_server.reset();
      m_state.pause_health_checks();
    }
  }

 private:
  fake::FakeGcs& m_state;
  std::string m_bind;
  int m_port;
  std::shared_ptr<grpc::ServerCredentials> m_credentials;
  grpc::Service* m_autoscaler;
  std::mutex m_mutex;
  std::unique_ptr<grpc::Server> m_server;
};

class Control final : public raylaunch::test::FakeGcsControl::Service {
 public:
  Control(fake::FakeGcs& state, GcsServer& gcs) : m_state(state), m_gcs(gcs) {}

  grpc::Status Command(grpc::ServerContext* /*context*/, const raylaunch::test::CommandRequest* request,
                       raylaunch::test::CommandReply* reply) override {
    const std::vector<std::string> args(request->args().begin(), request->args().end());
    const std::string cmd = args.empty() ? "" : args[0];
    bool ok = true;
    std::string out = "ok";
    if (cmd == "stop") {
      m_gcs.stop();
    } else if (cmd == "start") {
      ok = m_gcs.start() > 0;
    } else if (cmd == "restart" && args.size() >= 2) {
      // Down now; back after MS in the background (the reply comes while it is down).
      m_gcs.stop();
      if (has(args, "--wipe")) {
        m_state.wipe();  // a GCS without Redis fault tolerance forgets every node
      }
      const int down_ms = std::stoi(args[1]);
      std::thread([this, down_ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(down_ms));
        m_gcs.start();
      }).detach();
    } else if (cmd == "quit") {
      const std::lock_guard lock(m_mutex);
      m_quit = true;
      m_cv.notify_all();
    } else {
      out = m_state.command(args, ok);
    }
    reply->set_ok(ok);
    reply->set_output(out);
    return grpc::Status::OK;
  }

  void wait_for_quit() {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [this] { return m_quit; });
  }

 private:
  fake::FakeGcs& m_state;
  GcsServer& m_gcs;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_quit = false;
};

int serve(const std::vector<std::string>& args) {
  fake::Options options;
  options.ray_version = flag(args, "--ray-version", "2.9.0");
  if (has(args, "--token")) {
    options.token = flag(args, "--token", "");
  }
  if (has(args, "--token-from-env")) {
    if (std::string token = fake::token_from_env(); !token.empty()) {
      options.token = std::move(token);
    }
  }
  options.strict_request = has(args, "--strict-request");
  options.drain = flag(args, "--drain", "");
  options.health_check = fake::health_check_config_from_env();
  fake::HealthCheckConfig& hc = options.health_check;
  hc.initial_delay_ms = std::stoi(flag(args, "--health-check-initial-delay-ms", std::to_string(hc.initial_delay_ms)));
  hc.period_ms = std::stoi(flag(args, "--health-check-period-ms", std::to_string(hc.period_ms)));
  hc.timeout_ms = std::stoi(flag(args, "--health-check-timeout-ms", std::to_string(hc.timeout_ms)));
  hc.failure_threshold =
      std::stoi(flag(args, "--health-check-failure-threshold", std::to_string(hc.failure_threshold)));
  hc.credentials = fake::channel_credentials(args);
  const std::string control_address = flag(args, "--control", "");
  if (control_address.empty()) {
    std::cerr << "fake_gcs serve: --control unix:PATH is required\n";
    return 2;
  }
  // Every Ray gRPC server up to ~2.55 enables gRPC's default health service (grpc_server.cc).
  grpc::EnableDefaultHealthCheckService(true);
  fake::FakeGcs state(options);
  fake::FakeAutoscaler autoscaler(state);
  GcsServer gcs(state, flag(args, "--bind", "127.0.0.1"), std::stoi(flag(args, "--port", "0")),
                fake::server_credentials(args), options.drain.empty() ? nullptr : &autoscaler);
  const int port = gcs.start();
  if (port <= 0) {
    std::cerr << "fake_gcs serve: cannot listen\n";
    return 1;
  }
  Control control(state, gcs);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(control_address, grpc::InsecureServerCredentials());
  builder.RegisterService(&control);
  const std::unique_ptr<grpc::Server> control_server = builder.BuildAndStart();
  if (!control_server) {
    std::cerr << "fake_gcs serve: cannot listen on " << control_address << "\n";
    return 1;
  }
  write_port_file(flag(args, "--port-file", ""), port);
  std::cerr << "fake_gcs: Ray " << options.ray_version << " GCS on port " << port << ", control " << control_address
            << (options.token ? ", token required" : "") << (fake::tls_on(args) ? ", mutual TLS" : "")
            << ", raylet health checks: delay " << hc.initial_delay_ms
            << " ms, period " << hc.period_ms << " ms, timeout " << hc.timeout_ms << " ms, threshold "
            << hc.failure_threshold << "\n";
  control.wait_for_quit();
  gcs.stop();
  control_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
  return 0;
}

int ctl(const std::vector<std::string>& args) {
  const std::string control_address = flag(args, "--control", "");
  std::vector<std::string> command;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--control") {
      ++i;
    } else {
      command.push_back(args[i]);
    }
  }
  auto stub = raylaunch::test::FakeGcsControl::NewStub(
      grpc::CreateChannel(control_address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_wait_for_ready(true);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  raylaunch::test::CommandRequest request;
  for (const std::string& a : command) {
    request.add_args(a);
  }
  raylaunch::test::CommandReply reply;
  const grpc::Status status = stub->Command(&context, request, &reply);
  if (!status.ok()) {
    std::cerr << "fake_gcs ctl: " << status.error_message() << "\n";
    return 1;
  }
  std::cout << reply.output() << (reply.output().empty() || reply.output().back() == '\n' ? "" : "\n");
  return reply.ok() ? 0 : 1;
}

// Binds 127.0.0.1:`port` (0: any); returns the fd, writes the chosen port to `port`.
int listen_loopback(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 64) != 0) {
    close(fd);
    return -1;
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

int blackhole(const std::vector<std::string>& args) {
  int port = std::stoi(flag(args, "--port", "0"));
  const int fd = listen_loopback(port);
  if (fd < 0) {
    std::cerr << "fake_gcs blackhole: cannot listen\n";
    return 1;
  }
  write_port_file(flag(args, "--port-file", ""), port);
  std::vector<int> held;  // accepted and never answered, never closed
  for (;;) {
    const int c = accept(fd, nullptr, nullptr);
    if (c >= 0) {
      held.push_back(c);
    }
  }
}

int freeport() {
  int port = 0;
  const int fd = listen_loopback(port);
  if (fd < 0) {
    return 1;
  }
  close(fd);
  std::cout << port << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "serve") {
    return serve(args);
  }
  if (mode == "ctl") {
    return ctl(args);
  }
  if (mode == "raylet") {
    return fake::raylet_main(args);
  }
  if (mode == "ping") {
    return fake::ping_main(args);
  }
  if (mode == "nodes") {
    return fake::nodes_main(args);
  }
  if (mode == "blackhole") {
    return blackhole(args);
  }
  if (mode == "freeport") {
    return freeport();
  }
  if (mode == "send-v236") {
    return fake::send_v236_main(args);
  }
  std::cerr << "usage: fake_gcs serve|ctl|raylet|ping|nodes|blackhole|freeport|send-v236 ... (see "
               "tests/fakes/gcs/fake_main.cpp)\n";
  return 2;
}
