#pragma once
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "gang/pingpong_output.hpp"
#include "gang/ring.hpp"
#include "util/result.hpp"

namespace launcher::gcs {
class GcsClient;
}

namespace launcher::gang {

// The store the pods meet in: the GCS's internal KV, over the connection each pod already
// holds to its head (no new port, no RBAC). An interface so the round's rules can be tested
// without a GCS.
class KvStore {
 public:
  virtual ~KvStore() = default;
  virtual util::Result<bool> put(const std::string& key, const std::string& value) = 0;
  virtual util::Result<std::optional<std::string>> get(const std::string& key) = 0;
  virtual util::Result<std::vector<std::string>> keys(const std::string& prefix) = 0;
};

// The KV namespace of the check's keys (Ray's own namespaces are "cluster", "session", "fun", …).
inline constexpr const char* k_fabric_kv_namespace = "raylaunch_fabric";

// KvStore over a GCS client: each call ends at `rpc_timeout`, or at once on `stop`.
class GcsKv final : public KvStore {
 public:
  GcsKv(gcs::GcsClient& client, std::chrono::milliseconds rpc_timeout, std::stop_token stop);
  util::Result<bool> put(const std::string& key, const std::string& value) override;
  util::Result<std::optional<std::string>> get(const std::string& key) override;
  util::Result<std::vector<std::string>> keys(const std::string& prefix) override;

 private:
  gcs::GcsClient& m_client;
  std::chrono::milliseconds m_timeout;
  std::stop_token m_stop;
};

// Why a link has no good measure; the verdict turns each into its fix.
enum class LinkFailure {
  none,
  client_setup,   // the client's pod cannot run the test (no fi_pingpong, no address)
  server_setup,   // the server's pod could not start its side (no tool, port taken)
  provider,       // the provider is not there (fi_getinfo: no such device)
  silent,         // a pod never took part within the bound
  link,           // the test ran and failed: no answer, an error mid-way
};
const char* to_string(LinkFailure f);

// A link's outcome, as its client reports it (the head reads every one).
struct LinkReport {
  Link link;
  LinkFailure failure = LinkFailure::none;
  LinkMeasure measure;     // when failure is none
  std::string problem;     // one line otherwise
  std::string client_device;
  std::string server_device;
};
std::string encode_report(const LinkReport& report);
std::optional<LinkReport> decode_report(const std::string& text);

// What one pod brings to the round.
struct RoundSpec {
  std::string cluster;            // the cluster id (hex): the keys of this cluster only
  std::string round;              // head: this round's token (unique per head start); workers read it
  int ordinal = 0;
  int nodes = 1;
  std::vector<std::string> pods;  // the pods' names by ordinal, for messages
  std::string exe;                // fi_pingpong, found; "" with `tool_problem`
  std::string tool_problem;
  std::string provider;
  int port = 0;
  std::string address;            // this pod's IPv4 as peers reach it; "" with `address_problem`
  std::string address_problem;
  std::string device;             // the first EFA device of this pod, "" when none
  std::chrono::milliseconds timeout{30'000};  // this pod's part, from the head's go
  std::chrono::milliseconds go_wait{300'000};  // worker: how long to wait for the head's go
};

// The head, after the join barrier: announces the round, takes its own part and gathers every
// link's report until all are in or `timeout` (plus 3 s for the workers' last reports) has
// passed (a link without one is `silent`), and marks the round done. Reports in ring order.
std::vector<LinkReport> head_round(KvStore& kv, const RoundSpec& spec, std::stop_token stop);

// The head, when the barrier passed without every pod (a quorum, --min-nodes): tells the
// workers waiting for its go that there is no round, so none waits for pods that are not there.
void skip_round(KvStore& kv, const RoundSpec& spec);

// A worker, once its Ray runs: waits for the head's go (at most `go_wait`), takes its part
// (at most `timeout`). Skips a round already done (this worker restarted after it). One line
// for the log: what it did.
std::string worker_round(KvStore& kv, const RoundSpec& spec, std::stop_token stop);

}  // namespace launcher::gang
