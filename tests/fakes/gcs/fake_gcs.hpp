#pragma once
// FAKE, for tests only: a stand-in for Ray's GCS (gcs_server) that speaks the same gRPC methods
// with the same field numbers (../shared/reference/ray-gcs-wire.md), holds a node table that
// tests edit through a control channel, and injects faults. It is not Ray and runs no Ray code.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fake_autoscaler.pb.h"
#include "fake_ray_gcs.grpc.pb.h"
#include "health_checker.hpp"

namespace fake {

struct Options {
  std::string ray_version = "2.9.0";  // which Ray's request handling and reply fields to mimic
  std::optional<std::string> token;   // require `authorization: Bearer <token>` (Ray 2.52+ token auth)
  std::optional<std::string> also_token;  // accepted too: a rotation's overlap (ctl token NEW [OLD])
  // INVALID_ARGUMENT for a GetAllNodeInfoRequest field the played version does not define (<= 2.35:
  // none; 2.36-2.48: only `filters` = 4; 2.49+: only `limit` = 1 and `node_selectors` = 2, never the
  // ambiguous field 3), and for a CheckAlive that carries node ids or addresses.
  bool strict_request = false;
  std::string drain;                  // "": no DrainNode (UNIMPLEMENTED); busy, idle or reject (fake_drain.hpp)
  HealthCheckConfig health_check;     // raylet health checks of nodes that registered themselves
};

// Faults set by the control channel; they apply to GetAllNodeInfo and CheckAlive.
struct Faults {
  int unavailable = 0;        // answer the next N calls with UNAVAILABLE; -1: every call
  int delay_ms = 0;           // sleep before answering (a slow GCS)
  int ray_status = 0;         // non-zero: reply OK at the gRPC level with GcsStatus{code}
  std::size_t pad_bytes = 0;  // label padding per node, to grow replies past gRPC's 4 MiB default
};

struct Stats {
  std::map<std::string, std::int64_t> calls;        // per method
  std::map<std::string, std::int64_t> reply_bytes;  // protobuf bytes of the replies sent, per method
  std::int64_t nonempty_check_alive = 0;            // CheckAlive requests that carried node ids
  std::int64_t nonempty_get_all = 0;          // GetAllNodeInfo requests that were not 0 bytes
  std::int64_t last_request_bytes = -1;
  std::int64_t last_reply_bytes = -1;
  std::int64_t unauthenticated = 0;
  std::int64_t rejected_layout = 0;
  std::int64_t max_get_all_per_second = 0;  // most GetAllNodeInfo calls within any 1 s window
  std::int64_t lookups_by_name = 0;         // GetAllNodeInfo asking for a node_name (either layout)
  std::int64_t lookups_by_id = 0;           // GetAllNodeInfo asking for a node_id (either layout)
  // Rows Ray's GetAllNodeInfo handler visits: every row, except for node-id-only selectors on
  // 2.49+, a map lookup each (gcs_node_manager.cc HandleGetAllNodeInfo; 2.36-2.48 filter row by row).
  std::int64_t rows_scanned = 0;
  std::deque<std::int64_t> recent_get_all;  // their CLOCK_MONOTONIC times (ns), last second
};

// The node table, faults and counters, shared by the gRPC handlers and the control channel.
class FakeGcs final : public ray::rpc::NodeInfoGcsService::Service {
 public:
  explicit FakeGcs(Options options);

  grpc::Status GetClusterId(grpc::ServerContext* context, const ray::rpc::GetClusterIdRequest* request,
                            ray::rpc::GetClusterIdReply* reply) override;
  grpc::Status GetAllNodeInfo(grpc::ServerContext* context, const ray::rpc::GetAllNodeInfoRequest* request,
                              ray::rpc::GetAllNodeInfoReply* reply) override;
  grpc::Status CheckAlive(grpc::ServerContext* context, const ray::rpc::CheckAliveRequest* request,
                          ray::rpc::CheckAliveReply* reply) override;
  // Ray ≈2.51+ only; older versions answer UNIMPLEMENTED, as a GCS without the method does.
  grpc::Status GetAllNodeAddressAndLiveness(grpc::ServerContext* context,
                                            const ray::rpc::GetAllNodeAddressAndLivenessRequest* request,
                                            ray::rpc::GetAllNodeAddressAndLivenessReply* reply) override;
  // A raylet registering itself (from any host, over TCP) and unregistering at graceful shutdown.
  grpc::Status RegisterNode(grpc::ServerContext* context, const ray::rpc::RegisterNodeRequest* request,
                            ray::rpc::RegisterNodeReply* reply) override;
  grpc::Status UnregisterNode(grpc::ServerContext* context, const ray::rpc::UnregisterNodeRequest* request,
                              ray::rpc::UnregisterNodeReply* reply) override;

  // DrainNode of the autoscaler state service (fake_drain.cpp).
  grpc::Status drain_node(grpc::ServerContext* context, const ray::rpc::autoscaler::DrainNodeRequest& request,
                          ray::rpc::autoscaler::DrainNodeReply& reply);

  // Control commands (see `fake_gcs ctl --help`); table and fault edits only. Returns the
  // output line(s) or an error message in `ok == false`.
  std::string command(const std::vector<std::string>& args, bool& ok);

  // Forget every node: a GCS restarted without fault tolerance (no Redis) starts empty, as a new
  // cluster with a cluster id of its own.
  void wipe();
  // The GCS server stopped / started again: raylet health checks stop and start over.
  void pause_health_checks() { m_health->pause(); }
  void resume_health_checks() { m_health->resume(); }

 private:
  // Checks token and faults shared by every handler; non-OK means "answer with this".
  grpc::Status admit(grpc::ServerContext* context, const char* method);
  bool version_at_least(int major, int minor) const;
  std::string add_node(const std::string& name, bool head, const std::string& ip, int nm_port);
  int kill_node(const std::string& name, const std::string& why);
  // ALIVE -> DEAD with a death reason; the health check of that node stops.
  void mark_dead(ray::rpc::GcsNodeInfo& node, const ray::rpc::NodeDeathInfo& death);
  void evict_dead();  // Ray keeps at most maximum_gcs_dead_node_cached_count DEAD nodes
  void on_health_check_failed(const std::string& node_id);
  std::string stats_text();
  void fill_reply(const ray::rpc::GetAllNodeInfoRequest& request, ray::rpc::GetAllNodeInfoReply& reply);
  void count_lookup(const ray::rpc::GetAllNodeInfoRequest& request);  // the lookups_* and rows_scanned stats
  // "" when the played version defines every field of `request`, else why not (strict mode).
  std::string layout_problem(const ray::rpc::GetAllNodeInfoRequest& request) const;
  static std::string describe_drain(const ray::rpc::autoscaler::DrainNodeRequest& request);

  Options m_options;
  int m_major = 2;
  int m_minor = 9;
  std::mutex m_mutex;
  std::vector<ray::rpc::GcsNodeInfo> m_nodes;  // insertion order; DEAD ones keep their place
  Faults m_faults;
  Stats m_stats;
  std::mt19937_64 m_rng;
  std::string m_cluster_id = std::string(28, '\x42');  // GetClusterId's answer; a wipe changes it
  int m_registered = 0;
  std::vector<std::string> m_drains;  // one line per DrainNode request (`ctl drains`)
  // Last member: destroyed first, so its threads stop while the table still exists.
  std::unique_ptr<HealthChecker> m_health;
};

// One line per node: "ALIVE|DEAD name idhex address:port head=0|1 [death=REASON (message)]".
std::string describe_node(const ray::rpc::GcsNodeInfo& node);

// Current time in Unix milliseconds, as Ray's current_sys_time_ms().
std::uint64_t now_ms();
// CLOCK_MONOTONIC nanoseconds, comparable across processes (benchmarks time registrations).
std::int64_t monotonic_ns();

}  // namespace fake
