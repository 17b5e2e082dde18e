// Benchmark helper (not a test): what a worker's head watch costs the GCS. Runs LOOKS looks of
// gcs::HeadWatch (cluster id + this node's row, as `run` does every RAYLAUNCH_HEAD_WATCH) back to
// back against a GCS, and prints one JSON object: the looks' RPCs and protobuf payload bytes as
// the watch counts them (what /metrics exports), and how the looks ended. The caller reads the
// GCS's own counters (the fake GCS's stats) beside them.
//   gcs_watch_cost_bench HOST:PORT NODE_NAME LOOKS
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "gcs/head_watch.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gcs_watch_cost_bench HOST:PORT NODE_NAME LOOKS\n");
    return 2;
  }
  launcher::gcs::GcsClient client(argv[1], {});
  launcher::gcs::HeadWatch watch(client, argv[2], 0);
  const int looks = std::stoi(argv[3]);
  std::map<int, int> states;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < looks; ++i) {
    states[static_cast<int>(watch.check(std::chrono::seconds(10), {}).state)] += 1;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const launcher::gcs::CallCost& c = watch.cost();
  std::printf("{\"looks\": %d, \"rpcs\": %d, \"bytes_sent\": %llu, \"bytes_received\": %llu, \"ok\": %d, "
              "\"unknown\": %d, \"ms_per_look\": %.3f}\n",
              looks, c.rpcs, static_cast<unsigned long long>(c.bytes_sent),
              static_cast<unsigned long long>(c.bytes_received), states[1], states[0], ms / looks);
  return states[1] > 0 ? 0 : 1;
}
