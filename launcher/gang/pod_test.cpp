#include "gang/pod_test.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "net/dns_lookup.hpp"
#include "supervisor/executable.hpp"
#include "util/fd.hpp"
#include "util/parse.hpp"

namespace launcher::gang {

namespace {

constexpr std::chrono::milliseconds k_refused_retry{200};

bool refused(const std::string& output) { return output.find("Connection refused") != std::string::npos; }

}  // namespace

util::Result<std::string> find_pingpong(const std::string& setting, const std::string& path) {
  if (!setting.empty()) {
    const auto found = supervisor::resolve_executable(setting, path);
    if (!found) {
      return util::Result<std::string>::failure("fi_pingpong (--fabric-pingpong " + setting +
                                                "): " + found.error().message);
    }
    return found.value();
  }
  const auto found = supervisor::resolve_executable("fi_pingpong", std::string(k_efa_bin) + ":" + path);
  if (!found) {
    return util::Result<std::string>::failure(
        "fi_pingpong not found in /opt/amazon/efa/bin or on PATH (install the EFA installer's tools, or "
        "Debian's libfabric-bin, in the image; or set --fabric-pingpong)");
  }
  return found.value();
}

std::string port_problem(int port) {
  util::Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) {
    return std::string("cannot open a socket: ") + std::strerror(errno);
  }
  // fi_pingpong's server sets SO_REUSEADDR too: a port in TIME_WAIT is free for it as well.
  const int one = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return "port " + std::to_string(port) + " is taken (" + std::strerror(errno) + ")";
  }
  return {};
}

util::Result<std::string> own_address(const std::string& toward, std::chrono::milliseconds timeout,
                                      std::stop_token stop) {
  using R = util::Result<std::string>;
  const auto ips = net::resolve_host(toward, timeout, std::move(stop));
  if (!ips) {
    return R::failure(ips.error());
  }
  for (const std::string& ip : ips.value()) {
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_port = htons(9);  // any port: a UDP connect sends nothing
    if (::inet_pton(AF_INET, ip.c_str(), &peer.sin_addr) != 1) {
      continue;  // fi_pingpong's control connection is IPv4 (pp_getaddrinfo: AF_INET)
    }
    util::Fd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!s.valid() || ::connect(s.get(), reinterpret_cast<const sockaddr*>(&peer), sizeof peer) != 0) {
      continue;
    }
    sockaddr_in mine{};
    socklen_t len = sizeof mine;
    char text[INET_ADDRSTRLEN] = {};
    if (::getsockname(s.get(), reinterpret_cast<sockaddr*>(&mine), &len) == 0 &&
        ::inet_ntop(AF_INET, &mine.sin_addr, text, sizeof text) != nullptr) {
      return std::string(text);
    }
  }
  return R::failure("no IPv4 route toward " + toward);
}

std::vector<std::string> server_argv(const PingpongSpec& spec) {
  return {spec.exe, "-p", spec.provider, "-e", "rdm", "-I", std::to_string(k_pingpong_iterations),
          "-B", std::to_string(spec.port)};
}

std::vector<std::string> client_argv(const PingpongSpec& spec, const std::string& server_host, int server_port) {
  return {spec.exe, "-p", spec.provider, "-e", "rdm", "-I", std::to_string(k_pingpong_iterations),
          "-P", std::to_string(server_port), server_host};
}

ChildResult run_server(const PingpongSpec& spec, std::chrono::milliseconds limit, std::stop_token stop) {
  return run_bounded(spec.exe, server_argv(spec), limit, std::move(stop));
}

util::Result<LinkMeasure> run_client(const PingpongSpec& spec, const std::string& host, int port,
                                     std::chrono::milliseconds limit, std::stop_token stop) {
  using R = util::Result<LinkMeasure>;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const std::string where = host + ":" + std::to_string(port);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return R::failure("nothing listened at " + where + " within " + util::format_elapsed(limit));
    }
    const ChildResult r = run_bounded(spec.exe, client_argv(spec, host, port), left, stop);
    switch (r.end) {
      case ChildEnd::not_started:
        return R::failure("fi_pingpong did not start: " + r.output);
      case ChildEnd::stopped:
        return R::failure("stopped");
      case ChildEnd::timed_out:
        return R::failure("no answer from " + where + " within " + util::format_elapsed(limit) +
                          (r.output.empty() ? "" : " (" + pingpong_problem(r.output) + ")"));
      case ChildEnd::exited:
        break;
    }
    if (refused(r.output) && pingpong_rows(r.output).empty()) {
      std::this_thread::sleep_for(k_refused_retry);
      if (stop.stop_requested()) {
        return R::failure("stopped");
      }
      continue;
    }
    return link_measure(r.output);
  }
}

}  // namespace launcher::gang
