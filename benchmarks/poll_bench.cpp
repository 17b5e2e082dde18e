// Benchmark 3 and 5 helper (not a test): K polls on one reused channel, as `raylaunch wait` polls
// (request, decode, count ALIVE by pod), and what each costs the client: wall time per poll and CPU
// per poll (getrusage of the whole process, gRPC's threads included). `full`: GetAllNodeInfo with
// an empty request; `light`: GetAllNodeAddressAndLiveness{ALIVE} (Ray ≈2.51+). One JSON object.
//   gcs_poll_bench HOST:PORT POLLS [full|light]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "gcs/gcs_client.hpp"

namespace {

double cpu_ms() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: gcs_poll_bench HOST:PORT POLLS [full|light]\n");
    return 2;
  }
  const int polls = std::stoi(argv[2]);
  const bool light = argc == 4 && std::string(argv[3]) == "light";
  launcher::gcs::GcsClient client(argv[1], {});
  auto poll = [&] {
    return light ? client.get_alive_node_addresses(std::chrono::seconds(30))
                 : client.get_all_node_info(std::chrono::seconds(30));
  };
  launcher::gcs::NodeTable last;
  for (int i = 0; i < 3; ++i) {  // connect and warm up
    auto t = poll();
    if (!t) {
      std::fprintf(stderr, "poll failed: %s\n", t.error().describe().c_str());
      return 1;
    }
  }
  std::vector<double> wall;
  int alive = 0;
  const double cpu_before = cpu_ms();
  for (int i = 0; i < polls; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto t = poll();
    if (!t) {
      std::fprintf(stderr, "poll failed: %s\n", t.error().describe().c_str());
      return 1;
    }
    alive = launcher::gcs::count_alive(t.value(), {}).distinct_alive();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    last = std::move(t).value();
  }
  const double cpu = (cpu_ms() - cpu_before) / polls;
  std::sort(wall.begin(), wall.end());
  std::printf(
      "{\"nodes\": %zu, \"alive\": %d, \"wall_ms_median\": %.3f, \"wall_ms_p90\": %.3f, "
      "\"cpu_ms_per_poll\": %.3f}\n",
      last.nodes.size(), alive, wall[wall.size() / 2], wall[wall.size() * 9 / 10], cpu);
  return 0;
}
