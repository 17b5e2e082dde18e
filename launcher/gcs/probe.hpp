#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "gcs/gcs_channel.hpp"
#include "util/clock.hpp"
#include "util/platform.hpp"

namespace launcher::gcs {

// What a probe needs to know about this pod; the caller settles it from the pod's identity.
struct ProbeTarget {
  bool head = false;             // this pod runs the Ray head
  std::string node_name;         // this pod's hostname, Ray's --node-name (worker readiness)
  std::string head_address;      // host:port of the head's GCS (worker readiness)
  int ray_port = platform::k_gcs_port;                    // the head's own GCS port (head probes)
  int node_manager_port = platform::k_node_manager_port;  // this pod's raylet port (worker liveness)
  std::chrono::milliseconds timeout{1000};
};

// One try, deadline `target.timeout` for the whole probe (keep it below the kubelet's
// timeoutSeconds):
// - head, liveness and readiness: its GCS answers an empty CheckAlive on 127.0.0.1:<ray_port>.
//   For liveness an UNAUTHENTICATED answer still counts as alive (the process answered; a
//   restart cannot fix a token).
// - worker liveness: its own raylet answers grpc.health.v1.Health/Check on
//   127.0.0.1:<node_manager_port>. Deliberately not the head: restarting workers does not bring
//   a head back, and the raylet exits by itself after gcs_rpc_server_reconnect_timeout_s.
// - worker readiness: this pod's hostname has an ALIVE row in the head's GCS node table. An empty
//   CheckAlive first learns the GCS's version, then GetAllNodeInfo asks for this pod's rows in the
//   layout that version filters on: one row on Ray >= 2.36, the whole table on <= 2.35.
// With TLS, every server is verified against the name or IP dialled: 127.0.0.1 for the local ones.
ProbeResult run_probe(ProbeKind kind, const ProbeTarget& target, const Credentials& credentials);

// The same probes on channels kept open across calls, for the resident health endpoint (one
// caller at a time: its probe thread). The GCS's version is learnt once per channel (again after
// a failed call). A worker's readiness asks by name until it finds this pod's ALIVE row, then, on
// Ray >= 2.49, by that row's node id: a map lookup on the GCS where a name is a scan of every row
// (back to the name when the row is no longer ALIVE). Where the version cannot filter (Ray <=
// 2.35), the answer is reused for 30 s plus jitter (ReadinessCache), so the GCS sends its table at
// most that often.
class Prober {
 public:
  // `clock` (tests, benchmarks) must outlive the Prober; null: the steady clock.
  Prober(ProbeTarget target, Credentials credentials, util::Clock* clock = nullptr);
  ~Prober();
  Prober(const Prober&) = delete;
  Prober& operator=(const Prober&) = delete;

  ProbeResult probe(ProbeKind kind);

 private:
  struct Clients;
  ProbeTarget m_target;
  Credentials m_credentials;
  std::unique_ptr<util::Clock> m_own_clock;
  util::Clock* m_clock;
  std::unique_ptr<Clients> m_clients;
};

// A worker's readiness answer, reused where asking costs the GCS its whole node table (Ray <= 2.35
// filters nothing: ~457 bytes per node per reply, ~1.9 MB at 4,096 nodes). The resident endpoint
// asks again at most every `period`, stretched by up to 20 % at random so that thousands of pods
// started together do not ask in step. Only answers the GCS gave are kept; a failed call is not.
// A "not ready" answer is not kept at all (the endpoint's own 1 s cache still bounds the asking):
// a pod that has just started is about to register, and keeping its "not registered" for 30 s
// left it NotReady that long after its head counted it (tests/cluster scenario 7).
class ReadinessCache {
 public:
  static constexpr std::chrono::milliseconds k_period{30'000};

  ReadinessCache(util::Clock& clock, std::chrono::milliseconds period = k_period,
                 std::uint64_t seed = std::random_device{}());

  // The kept answer while it is fresh, its line ending in "(Ray <= 2.35: answer from 12s ago)".
  std::optional<ProbeResult> fresh();
  void store(const ProbeResult& result);
  void clear() { m_answer.reset(); }

 private:
  util::Clock& m_clock;
  std::chrono::milliseconds m_period;
  std::mt19937_64 m_rng;
  std::optional<ProbeResult> m_answer;
  util::Clock::TimePoint m_at{};
  util::Clock::TimePoint m_expires{};
};

}  // namespace launcher::gcs
