// What one poll of the watches costs (issue 27): the EFA counters of a p5's 32 devices read and
// judged (read_efa_counters + EfaWatch), and one RAS poll of a 512-rank job answered by the FAKE
// RAS server (query_ras_status + parse_ras_status + CollectiveWatch), JSON and text, plus the
// parse alone. Prints one markdown table row per measurement: median, p90, min over N runs.
//   fabric_watch_bench TREE JSON_PORT TEXT_PORT [RUNS]
// Not a test: nothing asserts a time (benchmarks/fabric_watch writes the results file).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "util/host_fs.hpp"
#include "watch/collective_watch.hpp"
#include "watch/efa_counters.hpp"
#include "watch/efa_watch.hpp"
#include "watch/nccl_ras_client.hpp"
#include "watch/nccl_ras_status.hpp"

using namespace launcher;
using namespace launcher::watch;
using Clock = std::chrono::steady_clock;

namespace {

struct Stats {
  double median_ms, p90_ms, min_ms;
};

Stats measure(int runs, const std::function<void()>& once) {
  std::vector<double> ms;
  once();  // warm-up: page cache, the server's first connection
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    once();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  if (ms.empty()) {
    return {0, 0, 0};
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms[0]};
}

void row(const char* what, const Stats& s, int runs) {
  std::printf("| %s | %.3f ms | %.3f ms | %.3f ms | %d |\n", what, s.median_ms, s.p90_ms, s.min_ms, runs);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: fabric_watch_bench TREE JSON_PORT TEXT_PORT [RUNS]\n");
    return 64;
  }
  const util::HostFs fs(argv[1]);
  const int runs = argc > 4 ? std::atoi(argv[4]) : 200;
  std::vector<std::string> devices;
  for (int i = 0; i < 32; ++i) {
    devices.push_back("rdmap" + std::to_string(i) + "s0");
  }
  EfaWatch efa(std::chrono::minutes(5));
  std::chrono::milliseconds at{0};
  const Stats efa_poll = measure(runs, [&] {
    at += std::chrono::seconds(10);
    const auto v = efa.add(read_efa_counters(fs, devices), at);
    if (v.rates.size() != 32) {
      std::abort();
    }
  });
  row("EFA: 32 devices × 4 counters read and judged", efa_poll, runs);

  for (const auto& [what, port] : {std::pair{"JSON (NCCL 2.30)", argv[2]}, std::pair{"text (NCCL 2.26)", argv[3]}}) {
    const net::HostPort address{"127.0.0.1", std::atoi(port)};
    CollectiveWatch watch(10);
    RasDump last;
    const Stats poll = measure(runs / 4, [&] {
      const auto dump = query_ras_status(address, {});
      const auto status = dump ? parse_ras_status(*dump) : util::Result<RasStatus>::failure(dump.error());
      if (!status) {
        std::fprintf(stderr, "%s\n", status.error().c_str());
        std::abort();
      }
      watch.add(*status);
      last = *dump;
    });
    const Stats parse = measure(runs, [&] {
      if (!parse_ras_status(last)) {
        std::abort();
      }
    });
    row((std::string("RAS poll, 512 ranks, ") + what + ": connect, handshake, dump (" +
         std::to_string(last.body.size()) + " bytes), parse, judge").c_str(),
        poll, runs / 4);
    row((std::string("RAS parse alone, 512 ranks, ") + what).c_str(), parse, runs);
  }
  return 0;
}
