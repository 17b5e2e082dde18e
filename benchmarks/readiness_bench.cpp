// Benchmark 4 helper (not a test): the resident health endpoint's worker readiness, as `run` asks
// it (gcs::Prober, channels kept open), N times at a simulated kubelet period on a fake clock, so
// ten minutes of probing take a second. The GCS's reply bytes are read from the fake GCS by the
// caller; this prints what the probes answered, as one JSON object.
//   gcs_readiness_bench HOST:PORT NODE_NAME PROBES PERIOD_MS
#include <chrono>
#include <cstdio>
#include <string>

#include "gcs/probe.hpp"
#include "util/clock.hpp"

namespace {

// Time moves only when the benchmark says so; RPCs take real time, which the fake clock ignores.
class SimulatedClock final : public launcher::util::Clock {
 public:
  TimePoint now() override { return m_now; }
  bool sleep_for(std::chrono::milliseconds d, std::stop_token) override {
    m_now += d;
    return true;
  }

 private:
  TimePoint m_now = std::chrono::steady_clock::now();
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: gcs_readiness_bench HOST:PORT NODE_NAME PROBES PERIOD_MS\n");
    return 2;
  }
  launcher::gcs::ProbeTarget target;
  target.head = false;
  target.head_address = argv[1];
  target.node_name = argv[2];
  target.timeout = std::chrono::seconds(30);
  const int probes = std::stoi(argv[3]);
  const std::chrono::milliseconds period(std::stoi(argv[4]));
  SimulatedClock clock;
  launcher::gcs::Prober prober(target, {}, &clock);
  int healthy = 0;
  std::string last;
  for (int i = 0; i < probes; ++i) {
    const auto r = prober.probe(launcher::ProbeKind::readiness);
    healthy += r.healthy ? 1 : 0;
    last = r.line;
    clock.sleep_for(period, {});
  }
  std::printf("{\"probes\": %d, \"healthy\": %d}\n", probes, healthy);
  std::fprintf(stderr, "last answer: %s\n", last.c_str());
  return healthy == probes ? 0 : 1;
}
