// FAKE GCS, for tests only: the node table, Ray's request handling per version, auth and faults.
#include "fake_gcs.hpp"

#include <time.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string_view>
#include <thread>

#include <google/protobuf/unknown_field_set.h>

#include "fake_control.pb.h"

namespace fake {

namespace {

constexpr int k_node_id_bytes = 28;  // kUniqueIDSize

std::string hex(const std::string& bytes) {
  return to_hex(bytes);
}

}  // namespace

std::uint64_t now_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

FakeGcs::FakeGcs(Options options) : m_options(std::move(options)), m_rng(std::random_device{}()) {
  std::sscanf(m_options.ray_version.c_str(), "%d.%d", &m_major, &m_minor);
  m_health = std::make_unique<HealthChecker>(m_options.health_check,
                                             [this](const std::string& id) { on_health_check_failed(id); });
}

bool FakeGcs::version_at_least(int major, int minor) const {
  return m_major > major || (m_major == major && m_minor >= minor);
}

void FakeGcs::wipe() {
  const std::lock_guard lock(m_mutex);
  for (const ray::rpc::GcsNodeInfo& n : m_nodes) {
    m_health->remove(n.node_id());
  }
  m_nodes.clear();
  m_cluster_id[0] = static_cast<char>(m_cluster_id[0] + 1);
}

grpc::Status FakeGcs::admit(grpc::ServerContext* context, const char* method) {
  int delay = 0;
  {
    const std::lock_guard lock(m_mutex);
    ++m_stats.calls[method];
    if (std::string_view(method) == "GetAllNodeInfo") {
      const std::int64_t now = monotonic_ns();
      m_stats.recent_get_all.push_back(now);
      while (now - m_stats.recent_get_all.front() >= 1'000'000'000) {
        m_stats.recent_get_all.pop_front();
      }
      m_stats.max_get_all_per_second =
          std::max(m_stats.max_get_all_per_second, static_cast<std::int64_t>(m_stats.recent_get_all.size()));
    }
    if (m_options.token) {
      // Ray: `authorization: Bearer <token>`, UNAUTHENTICATED with "InvalidAuthToken..." otherwise
      // (authentication_token.h, RayStatusToGrpcStatus in grpc_util.h).
      const auto& md = context->client_metadata();
      const auto it = md.find("authorization");
      const std::string sent = it == md.end() ? "" : std::string(it->second.data(), it->second.size());
      const bool accepted =
          sent == "Bearer " + *m_options.token || (m_options.also_token && sent == "Bearer " + *m_options.also_token);
      if (!accepted) {
        ++m_stats.unauthenticated;
        return {grpc::StatusCode::UNAUTHENTICATED,
                "InvalidAuthToken: Authentication required. Please provide a valid token"};
      }
    }
    if (m_faults.unavailable != 0) {
      if (m_faults.unavailable > 0) {
        --m_faults.unavailable;
      }
      return {grpc::StatusCode::UNAVAILABLE, "fake GCS: injected UNAVAILABLE"};
    }
    delay = m_faults.delay_ms;
  }
  if (delay > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
  return grpc::Status::OK;
}

grpc::Status FakeGcs::GetClusterId(grpc::ServerContext* context, const ray::rpc::GetClusterIdRequest* /*request*/,
                                   ray::rpc::GetClusterIdReply* reply) {
  if (grpc::Status s = admit(context, "GetClusterId"); !s.ok()) {
    return s;
  }
  const std::lock_guard lock(m_mutex);
  reply->set_cluster_id(m_cluster_id);
  return grpc::Status::OK;
}

grpc::Status FakeGcs::CheckAlive(grpc::ServerContext* context, const ray::rpc::CheckAliveRequest* request,
                                 ray::rpc::CheckAliveReply* reply) {
  if (grpc::Status s = admit(context, "CheckAlive"); !s.ok()) {
    return s;
  }
  const std::lock_guard lock(m_mutex);
  m_stats.last_request_bytes = static_cast<std::int64_t>(request->ByteSizeLong());
  if (request->node_ids_size() > 0) {
    // Field 1 holds raylet addresses up to 2.48 and 28-byte node ids from 2.49, where a malformed
    // one aborts the GCS (NodeID::FromBinary → RAY_CHECK): a probe must never send it.
    ++m_stats.nonempty_check_alive;
    if (m_options.strict_request) {
      ++m_stats.rejected_layout;
      return {grpc::StatusCode::INVALID_ARGUMENT, "fake GCS (strict): CheckAlive with node ids or raylet addresses"};
    }
  }
  reply->mutable_status()->set_code(m_faults.ray_status);
  reply->set_ray_version(m_options.ray_version);
  for (const std::string& id : request->node_ids()) {
    const bool alive = std::any_of(m_nodes.begin(), m_nodes.end(), [&](const ray::rpc::GcsNodeInfo& n) {
      return n.node_id() == id && n.state() == ray::rpc::GcsNodeInfo::ALIVE;
    });
    reply->add_raylet_alive(alive);
  }
  m_stats.reply_bytes["CheckAlive"] += static_cast<std::int64_t>(reply->ByteSizeLong());
  return grpc::Status::OK;
}

grpc::Status FakeGcs::GetAllNodeAddressAndLiveness(grpc::ServerContext* context,
                                                   const ray::rpc::GetAllNodeAddressAndLivenessRequest* request,
                                                   ray::rpc::GetAllNodeAddressAndLivenessReply* reply) {
  if (!version_at_least(2, 51)) {
    return {grpc::StatusCode::UNIMPLEMENTED, ""};  // what gRPC answers for a method the server lacks
  }
  if (grpc::Status s = admit(context, "GetAllNodeAddressAndLiveness"); !s.ok()) {
    return s;
  }
  const std::lock_guard lock(m_mutex);
  m_stats.last_request_bytes = static_cast<std::int64_t>(request->ByteSizeLong());
  if (m_faults.ray_status != 0) {
    reply->mutable_status()->set_code(m_faults.ray_status);
    reply->mutable_status()->set_message("fake GCS: injected status");
    return grpc::Status::OK;
  }
  // Ray's handler (gcs_node_manager.cc [N] L459): ALIVE nodes, then DEAD ones; state_filter picks one
  // map (another value: nothing); limit <= 0 is unlimited.
  const std::int64_t limit = request->has_limit() && request->limit() > 0 ? request->limit() : INT64_MAX;
  for (const bool alive : {true, false}) {
    if (request->has_state_filter() && (request->state_filter() == ray::rpc::GcsNodeInfo::ALIVE) != alive) {
      continue;
    }
    for (const ray::rpc::GcsNodeInfo& n : m_nodes) {
      if ((n.state() == ray::rpc::GcsNodeInfo::ALIVE) != alive || reply->node_info_list_size() >= limit) {
        continue;
      }
      if (request->node_ids_size() > 0 &&
          std::find(request->node_ids().begin(), request->node_ids().end(), n.node_id()) == request->node_ids().end()) {
        continue;
      }
      ray::rpc::GcsNodeAddressAndLiveness* row = reply->add_node_info_list();
      row->set_node_id(n.node_id());
      row->set_node_manager_address(n.node_manager_address());
      row->set_node_manager_port(n.node_manager_port());
      row->set_object_manager_port(n.object_manager_port());
      row->set_state(n.state());
      if (n.has_death_info()) {
        *row->mutable_death_info() = n.death_info();
      }
    }
  }
  m_stats.last_reply_bytes = static_cast<std::int64_t>(reply->ByteSizeLong());
  m_stats.reply_bytes["GetAllNodeAddressAndLiveness"] += m_stats.last_reply_bytes;
  return grpc::Status::OK;
}

std::string FakeGcs::layout_problem(const ray::rpc::GetAllNodeInfoRequest& request) const {
  google::protobuf::UnknownFieldSet fields;
  fields.ParseFromString(request.SerializeAsString());
  std::vector<int> allowed;  // <= 2.35: `message GetAllNodeInfoRequest {}`
  if (version_at_least(2, 49)) {
    allowed = {1, 2};
  } else if (version_at_least(2, 36)) {
    allowed = {4};
  }
  for (int i = 0; i < fields.field_count(); ++i) {
    const int number = fields.field(i).number();
    if (std::find(allowed.begin(), allowed.end(), number) == allowed.end()) {
      return "fake GCS (strict): GetAllNodeInfoRequest field " + std::to_string(number) + " means nothing to Ray " +
             m_options.ray_version + ", or something else in another version";
    }
  }
  return "";
}

grpc::Status FakeGcs::GetAllNodeInfo(grpc::ServerContext* context, const ray::rpc::GetAllNodeInfoRequest* request,
                                     ray::rpc::GetAllNodeInfoReply* reply) {
  if (grpc::Status s = admit(context, "GetAllNodeInfo"); !s.ok()) {
    return s;
  }
  const std::lock_guard lock(m_mutex);
  const auto bytes = static_cast<std::int64_t>(request->ByteSizeLong());
  m_stats.last_request_bytes = bytes;
  if (bytes != 0) {
    ++m_stats.nonempty_get_all;
  }
  if (m_options.strict_request) {
    if (std::string problem = layout_problem(*request); !problem.empty()) {
      ++m_stats.rejected_layout;
      return {grpc::StatusCode::INVALID_ARGUMENT, problem};
    }
  }
  if (m_faults.ray_status != 0) {
    reply->mutable_status()->set_code(m_faults.ray_status);
    reply->mutable_status()->set_message("fake GCS: injected status");
    return grpc::Status::OK;
  }
  fill_reply(*request, *reply);
  m_stats.last_reply_bytes = static_cast<std::int64_t>(reply->ByteSizeLong());
  m_stats.reply_bytes["GetAllNodeInfo"] += m_stats.last_reply_bytes;
  return grpc::Status::OK;
}

// Ray's handler (gcs_node_manager.cc): every ALIVE node, then every DEAD one; 2.36+ add total and
// num_filtered and honour limit/filters (2.36-2.48) or limit/node_selectors/state_filter (2.49+).
void FakeGcs::fill_reply(const ray::rpc::GetAllNodeInfoRequest& request, ray::rpc::GetAllNodeInfoReply& reply) {
  std::vector<const ray::rpc::GcsNodeInfo*> order;
  for (const bool alive : {true, false}) {
    for (const ray::rpc::GcsNodeInfo& n : m_nodes) {
      if ((n.state() == ray::rpc::GcsNodeInfo::ALIVE) == alive) {
        order.push_back(&n);
      }
    }
  }
  auto keep = [](const ray::rpc::GcsNodeInfo&) { return true; };
  std::function<bool(const ray::rpc::GcsNodeInfo&)> match = keep;
  std::int64_t limit = INT64_MAX;
  if (version_at_least(2, 49)) {
    if (request.has_limit() && request.limit() > 0) {
      limit = request.limit();
    }
    const bool state_ok = !request.has_state_filter() || request.state_filter() == ray::rpc::GcsNodeInfo::ALIVE ||
                          request.state_filter() == ray::rpc::GcsNodeInfo::DEAD;
    match = [&request, state_ok](const ray::rpc::GcsNodeInfo& n) {
      if (!state_ok || (request.has_state_filter() && n.state() != request.state_filter())) {
        return false;  // Ray logs an error and returns nothing for an unknown state_filter
      }
      if (request.node_selectors_size() == 0) {
        return true;
      }
      return std::any_of(request.node_selectors().begin(), request.node_selectors().end(), [&n](const auto& s) {
        using S = ray::rpc::GetAllNodeInfoRequest::NodeSelector;
        switch (s.node_selector_case()) {
          case S::kNodeId:
            return s.node_id() == n.node_id();
          case S::kNodeName:
            return s.node_name() == n.node_name();
          case S::kNodeIpAddress:
            return s.node_ip_address() == n.node_manager_address();
          case S::kIsHeadNode:
            return s.is_head_node() == n.is_head_node();
          default:
            return false;
        }
      });
    };
  } else if (version_at_least(2, 36)) {
    raylaunch::test::GetAllNodeInfoRequestV236 old_layout;
    old_layout.ParseFromString(request.SerializeAsString());
    if (old_layout.has_limit() && old_layout.limit() > 0) {
      limit = old_layout.limit();
    }
    const auto f = old_layout.filters();
    match = [f](const ray::rpc::GcsNodeInfo& n) {
      return (!f.has_state() || f.state() == static_cast<int>(n.state())) &&
             (!f.has_node_id() || f.node_id() == n.node_id()) &&
             (!f.has_node_name() || f.node_name() == n.node_name()) &&
             (!f.has_node_ip_address() || f.node_ip_address() == n.node_manager_address());
    };
  }
  count_lookup(request);
  std::int64_t filtered = 0;
  for (const ray::rpc::GcsNodeInfo* n : order) {
    if (!match(*n)) {
      ++filtered;
      continue;
    }
    if (reply.node_info_list_size() < limit) {
      *reply.add_node_info_list() = *n;
    }
  }
  if (version_at_least(2, 36)) {
    reply.set_total(static_cast<std::int64_t>(m_nodes.size()));
    reply.set_num_filtered(filtered);
  }
}

void FakeGcs::count_lookup(const ray::rpc::GetAllNodeInfoRequest& request) {
  bool by_name = false;
  bool by_id = false;
  bool ids_only = version_at_least(2, 49) && request.node_selectors_size() > 0 && !request.has_state_filter();
  if (version_at_least(2, 49)) {
    for (const auto& selector : request.node_selectors()) {
      using S = ray::rpc::GetAllNodeInfoRequest::NodeSelector;
      by_name |= selector.node_selector_case() == S::kNodeName;
      by_id |= selector.node_selector_case() == S::kNodeId;
      ids_only &= selector.node_selector_case() == S::kNodeId;
    }
  } else if (version_at_least(2, 36)) {
    raylaunch::test::GetAllNodeInfoRequestV236 old_layout;
    old_layout.ParseFromString(request.SerializeAsString());
    by_name = old_layout.filters().has_node_name();
    by_id = old_layout.filters().has_node_id();
  }
  m_stats.lookups_by_name += by_name ? 1 : 0;
  m_stats.lookups_by_id += by_id ? 1 : 0;
  m_stats.rows_scanned += ids_only ? request.node_selectors_size() : static_cast<std::int64_t>(m_nodes.size());
}

std::string FakeGcs::add_node(const std::string& name, bool head, const std::string& ip, int nm_port) {
  ray::rpc::GcsNodeInfo n;
  std::string id(k_node_id_bytes, '\0');
  for (char& c : id) {
    c = static_cast<char>(m_rng() & 0xff);
  }
  const int i = ++m_registered;
  const std::string node_ip =
      ip.empty() ? "10.244." + std::to_string((i / 250) % 250) + "." + std::to_string(i % 250 + 1) : ip;
  const std::string session = "/tmp/ray/session_2026-11-30_05-48-15_123456_1";
  // Filled as a raylet registers itself (raylet/main.cc → RegisterNode).
  n.set_node_id(id);
  n.set_node_manager_address(node_ip);
  n.set_raylet_socket_name(session + "/sockets/raylet");
  n.set_object_store_socket_name(session + "/sockets/plasma_store");
  n.set_node_manager_port(nm_port);
  n.set_object_manager_port(8076);
  n.set_state(ray::rpc::GcsNodeInfo::ALIVE);
  n.set_node_manager_hostname(name);
  n.set_metrics_export_port(8080);
  (*n.mutable_resources_total())["CPU"] = 96;
  (*n.mutable_resources_total())["GPU"] = 8;
  (*n.mutable_resources_total())["memory"] = 1.2e12;
  (*n.mutable_resources_total())["object_store_memory"] = 2e11;
  (*n.mutable_resources_total())["node:" + node_ip] = 1;
  (*n.mutable_resources_total())["accelerator_type:H100"] = 1;
  if (head) {
    (*n.mutable_resources_total())["node:__internal_head__"] = 1;
  }
  n.set_node_name(name);
  n.set_start_time_ms(now_ms());
  n.set_is_head_node(head);
  (*n.mutable_labels())["ray.io/node_id"] = hex(id);
  if (m_faults.pad_bytes > 0) {
    (*n.mutable_labels())["raylaunch.test/padding"] = std::string(m_faults.pad_bytes, 'p');
  }
  n.set_runtime_env_agent_port(52365);
  n.mutable_state_snapshot()->set_state(ray::rpc::NodeSnapshot::IDLE);
  if (version_at_least(2, 54)) {
    n.set_metrics_agent_port(52366);
    n.set_dashboard_agent_listen_port(52365);
  }
  if (version_at_least(2, 55)) {
    n.set_temp_dir("/tmp/ray");
    n.set_session_dir(session);
  }
  m_nodes.push_back(std::move(n));
  return hex(id);
}

int FakeGcs::kill_node(const std::string& name, const std::string& why) {
  int killed = 0;
  ray::rpc::NodeDeathInfo death;
  death.set_reason(ray::rpc::NodeDeathInfo::UNEXPECTED_TERMINATION);
  if (version_at_least(2, 30)) {  // reason_message: absent at 2.9.0, present at 2.30.0
    death.set_reason_message(why);
  }
  for (ray::rpc::GcsNodeInfo& n : m_nodes) {
    if (n.node_name() == name && n.state() == ray::rpc::GcsNodeInfo::ALIVE) {
      mark_dead(n, death);
      ++killed;
    }
  }
  evict_dead();
  return killed;
}

std::string describe_node(const ray::rpc::GcsNodeInfo& n) {
  std::ostringstream out;
  out << (n.state() == ray::rpc::GcsNodeInfo::ALIVE ? "ALIVE" : "DEAD") << " " << n.node_name() << " "
      << to_hex(n.node_id()) << " " << n.node_manager_address() << ":" << n.node_manager_port()
      << " head=" << (n.is_head_node() ? 1 : 0);
  if (n.state() == ray::rpc::GcsNodeInfo::DEAD) {
    out << " death=" << ray::rpc::NodeDeathInfo::Reason_Name(n.death_info().reason());
    if (!n.death_info().reason_message().empty()) {
      out << " (" << n.death_info().reason_message() << ")";
    }
  }
  return out.str();
}

std::string FakeGcs::stats_text() {
  std::ostringstream out;
  for (const auto& [method, n] : m_stats.calls) {
    out << "calls." << method << "=" << n << "\n";
  }
  for (const auto& [method, n] : m_stats.reply_bytes) {
    out << "reply_bytes." << method << "=" << n << "\n";
  }
  out << "nonempty_get_all=" << m_stats.nonempty_get_all << "\n"
      << "last_request_bytes=" << m_stats.last_request_bytes << "\n"
      << "last_reply_bytes=" << m_stats.last_reply_bytes << "\n"
      << "unauthenticated=" << m_stats.unauthenticated << "\n"
      << "rejected_layout=" << m_stats.rejected_layout << "\n"
      << "nonempty_check_alive=" << m_stats.nonempty_check_alive << "\n"
      << "max_get_all_per_second=" << m_stats.max_get_all_per_second << "\n"
      << "lookups_by_name=" << m_stats.lookups_by_name << "\n"
      << "lookups_by_id=" << m_stats.lookups_by_id << "\n"
      << "rows_scanned=" << m_stats.rows_scanned << "\n"
      << "nodes=" << m_nodes.size() << "\n";
  return out.str();
}

std::string FakeGcs::command(const std::vector<std::string>& args, bool& ok) {
  ok = true;
  const std::lock_guard lock(m_mutex);
  const std::string cmd = args.empty() ? "" : args[0];
  auto arg = [&](std::size_t i, const std::string& fallback = "") { return i < args.size() ? args[i] : fallback; };
  auto has = [&](const std::string& flag) { return std::find(args.begin(), args.end(), flag) != args.end(); };
  auto flag_value = [&](const std::string& flag, const std::string& fallback) {
    const auto it = std::find(args.begin(), args.end(), flag);
    return it != args.end() && it + 1 != args.end() ? *(it + 1) : fallback;
  };
  if (cmd == "add" && args.size() >= 2) {
    std::ostringstream out;
    out << add_node(arg(1), has("--head"), flag_value("--ip", ""), std::stoi(flag_value("--nm-port", "6380")))
        << " registered_ns=" << monotonic_ns();
    return out.str();
  }
  if (cmd == "fill" && args.size() >= 3) {  // fill COUNT BASE [--from I]: BASE-I … BASE-(I+COUNT-1)
    const int count = std::stoi(arg(1));
    const int from = std::stoi(flag_value("--from", "0"));
    for (int i = from; i < from + count; ++i) {
      add_node(arg(2) + "-" + std::to_string(i), i == 0, "", 6380);
    }
    return std::to_string(m_nodes.size()) + " nodes";
  }
  if (cmd == "kill" && args.size() >= 2) {
    return std::to_string(kill_node(arg(1), flag_value("--why", "health check failed: raylet unreachable"))) +
           " killed";
  }
  if (cmd == "fault" && args.size() >= 3) {
    const std::string what = arg(1);
    const long value = std::stol(arg(2));
    if (what == "unavailable") {
      m_faults.unavailable = static_cast<int>(value);
    } else if (what == "delay") {
      m_faults.delay_ms = static_cast<int>(value);
    } else if (what == "status") {
      m_faults.ray_status = static_cast<int>(value);
    } else if (what == "pad") {
      m_faults.pad_bytes = static_cast<std::size_t>(value);
    } else {
      ok = false;
      return "unknown fault " + what;
    }
    return "ok";
  }
  if (cmd == "stats") {
    return stats_text();
  }
  if (cmd == "nodes") {
    std::string out;
    for (const ray::rpc::GcsNodeInfo& n : m_nodes) {
      out += describe_node(n) + "\n";
    }
    return out;
  }
  if (cmd == "token" && args.size() >= 2) {  // token NEW [OLD]: a rotation; OLD stays valid until the next
    m_options.token = arg(1);
    m_options.also_token = args.size() >= 3 ? std::optional<std::string>(arg(2)) : std::nullopt;
    return "ok";
  }
  if (cmd == "drains") {
    std::string lines;
    for (const std::string& d : m_drains) {
      lines += d + "\n";
    }
    return lines.empty() ? "none" : lines;
  }
  if (cmd == "reset-stats") {
    m_stats = Stats{};
    return "ok";
  }
  ok = false;
  return "unknown command (add NAME [--head] [--ip IP] [--nm-port P] | fill COUNT BASE [--from I] | kill NAME | "
         "fault unavailable|delay|status|pad N | token NEW [OLD] | stats | nodes | drains | reset-stats | stop | start | "
         "restart MS [--wipe] | "
         "quit)";
}

}  // namespace fake
