#pragma once
#include <chrono>
#include <stop_token>
#include <string>
#include <vector>

#include "gang/bounded_child.hpp"
#include "gang/pingpong_output.hpp"
#include "util/result.hpp"

namespace launcher::gang {

// Where the EFA installer puts libfabric's tools (aws-efa-installer: /opt/amazon/efa/bin holds
// fi_info and fi_pingpong); searched before PATH, as `ray` is found on the venv's bin first.
inline constexpr const char* k_efa_bin = "/opt/amazon/efa/bin";
// fi_pingpong's own default control port (util/pingpong.c pp_ctrl_init, default_ctrl).
inline constexpr int k_pingpong_port = 47592;
// Iterations per message size: fi_pingpong's default six sizes (64 B … 1 MiB, generate_test_sizes)
// 20 times each, about 40 MiB in each direction: a second on a slow TCP link, milliseconds on EFA.
inline constexpr int k_pingpong_iterations = 20;

// The fi_pingpong to run: `setting` (a path, or a name looked up on `path`) when given, else
// /opt/amazon/efa/bin/fi_pingpong, else fi_pingpong on `path`. The error says where it looked
// and what to do.
util::Result<std::string> find_pingpong(const std::string& setting, const std::string& path);

// "" when TCP `port` is free to listen on (every address), else why not ("port 47592 is taken
// (Address already in use)").
std::string port_problem(int port);

// This pod's address as its peers reach it: the source address the kernel picks to reach
// `toward` (a UDP socket connected, nothing sent), so the head's address or any peer's works;
// the first IP of `toward` is resolved first. Fails when nothing routes there.
util::Result<std::string> own_address(const std::string& toward, std::chrono::milliseconds timeout,
                                      std::stop_token stop);

// One side of a link's test: fi_pingpong with the provider, an RDM endpoint, the iterations.
struct PingpongSpec {
  std::string exe;
  std::string provider;
  int port = k_pingpong_port;
};
std::vector<std::string> server_argv(const PingpongSpec& spec);
std::vector<std::string> client_argv(const PingpongSpec& spec, const std::string& server_host, int server_port);

// The server side, for at most `limit` (it ends once its client is done).
ChildResult run_server(const PingpongSpec& spec, std::chrono::milliseconds limit, std::stop_token stop);

// The client side against `host`:`port`, until `limit`: a refused connection is tried again
// every 200 ms (the server may not listen yet), any other failure ends it. The measure, or why
// there is none (one line).
util::Result<LinkMeasure> run_client(const PingpongSpec& spec, const std::string& host, int port,
                                     std::chrono::milliseconds limit, std::stop_token stop);

}  // namespace launcher::gang
