// Benchmark helper (not a test): the gang fabric check's round (gang/fabric_round.cpp) for N
// pods on this machine, with Debian's real fi_pingpong over the tcp provider on 127.0.0.1 (each
// pod a thread, its server on a port of its own) and the KV in memory (tests/support/map_kv.hpp;
// on a cluster it is the GCS's). Prints, per N, the medians over RUNS rounds of the head's wall
// time, the CPU time of the round (this process, the KV polls and the bounded children's
// supervision, plus every fi_pingpong it reaped) and the slowest link's own fi_pingpong time.
//   fabric_check_bench FI_PINGPONG RUNS N [N...]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gang/fabric_round.hpp"
#include "map_kv.hpp"

using namespace launcher;
using std::chrono::milliseconds;

namespace {

double cpu_ms(int who) {
  rusage u{};
  getrusage(who, &u);
  const auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + t.tv_usec / 1e3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

gang::RoundSpec pod(const std::string& exe, int ordinal, int nodes, int run) {
  gang::RoundSpec s;
  s.cluster = "bench";
  s.round = std::to_string(run);
  s.ordinal = ordinal;
  s.nodes = nodes;
  s.exe = exe;
  s.provider = "tcp";
  s.port = 48500 + (run % 4) * 64 + ordinal;
  s.address = "127.0.0.1";
  s.timeout = milliseconds(60'000);
  s.go_wait = milliseconds(60'000);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: fabric_check_bench FI_PINGPONG RUNS N [N...]\n");
    return 2;
  }
  const std::string exe = argv[1];
  const int runs = std::atoi(argv[2]);
  std::printf("| pods | links | wall (median) | CPU (median) | CPU per link | slowest link's fi_pingpong (median) | failed |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  int run_id = 0;
  for (int a = 3; a < argc; ++a) {
    const int n = std::atoi(argv[a]);
    std::vector<double> walls;
    std::vector<double> cpus;
    std::vector<double> slowest;
    int failed = 0;
    for (int r = 0; r < runs; ++r, ++run_id) {
      testing::MapKv kv;
      const double cpu0 = cpu_ms(RUSAGE_SELF) + cpu_ms(RUSAGE_CHILDREN);
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::jthread> workers;
      for (int i = 1; i < n; ++i) {
        workers.emplace_back([&, i] { gang::worker_round(kv, pod(exe, i, n, run_id), {}); });
      }
      const auto reports = gang::head_round(kv, pod(exe, 0, n, run_id), {});
      workers.clear();  // joined: every pod's part is over
      walls.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      cpus.push_back(cpu_ms(RUSAGE_SELF) + cpu_ms(RUSAGE_CHILDREN) - cpu0);
      double worst = 0;
      for (const auto& rep : reports) {
        failed += rep.failure != gang::LinkFailure::none ? 1 : 0;
        // fi_pingpong's own time: 20 iterations of each of its six sizes, from its table.
        worst = std::max(worst, rep.measure.seconds * 1e3);
      }
      slowest.push_back(worst);
    }
    const double links = n == 2 ? 1 : n;
    std::printf("| %d | %.0f | %.0f ms | %.0f ms | %.0f ms | %.0f ms | %d |\n", n, links, median(walls), median(cpus),
                median(cpus) / links, median(slowest), failed);
  }
  return 0;
}
