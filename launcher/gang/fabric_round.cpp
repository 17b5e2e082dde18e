#include "gang/fabric_round.hpp"

#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "gang/fabric_verdict.hpp"
#include "gang/pod_test.hpp"
#include "gcs/cluster_rpcs.hpp"
#include "util/json.hpp"
#include "util/parse.hpp"

namespace launcher::gang {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often a pod looks for what it waits for in the KV: a small RPC, a handful per second.
constexpr milliseconds k_poll{200};
// A worker looks for the head's go less often: it may wait for the whole join barrier.
constexpr milliseconds k_go_poll{500};
// A worker's part starts when it sees the go, up to one go poll after the head's, and its
// report is one put away after its own bound: the head waits this much longer for reports, so
// a link that timed out is reported as the link's failure, not as a silent pod.
constexpr milliseconds k_report_slack{3'000};
// The go of a round the head skipped (never a round token: those are wall-clock ms).
constexpr const char* k_skip = "skip";

milliseconds left_until(Clock::time_point deadline) {
  return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

bool nap(milliseconds d, const std::stop_token& stop) {
  const auto until = Clock::now() + d;
  while (Clock::now() < until) {
    if (stop.stop_requested()) {
      return false;
    }
    std::this_thread::sleep_for(std::min(milliseconds(20), left_until(until)));
  }
  return !stop.stop_requested();
}

std::string name_of(const RoundSpec& spec, int ordinal) { return pod_name(spec.pods, ordinal); }

// A put that is tried again until the deadline: one GCS hiccup must not lose a pod's part.
void put_until(KvStore& kv, const std::string& key, const std::string& value, Clock::time_point deadline,
               const std::stop_token& stop) {
  while (!kv.put(key, value) && Clock::now() < deadline && nap(k_poll, stop)) {
  }
}

// Waits for `key` to be written, until the deadline.
std::optional<std::string> await_key(KvStore& kv, const std::string& key, Clock::time_point deadline,
                                     milliseconds poll, const std::stop_token& stop) {
  for (;;) {
    const auto got = kv.get(key);
    if (got && got.value()) {
      return *got.value();
    }
    if (Clock::now() + poll > deadline || !nap(poll, stop)) {
      return std::nullopt;
    }
  }
}

// The client's side of its link: the server's address from the KV, then fi_pingpong.
LinkReport client_part(KvStore& kv, const RoundSpec& spec, const std::string& prefix, int server,
                       Clock::time_point deadline, const std::stop_token& stop) {
  LinkReport r;
  r.link = {spec.ordinal, server};
  r.client_device = spec.device;
  if (!spec.tool_problem.empty()) {
    r.failure = LinkFailure::client_setup;
    r.problem = spec.tool_problem;
    return r;
  }
  const auto value = await_key(kv, prefix + "addr/" + std::to_string(server), deadline, k_poll, stop);
  if (!value) {
    r.failure = LinkFailure::silent;
    r.problem = name_of(spec, server) + " published no address within " + util::format_duration(spec.timeout);
    return r;
  }
  if (!value->empty() && value->front() == '!') {
    r.failure = LinkFailure::server_setup;
    r.problem = value->substr(1);
    return r;
  }
  const std::vector<std::string> words = util::split_words(*value);
  const auto port = words.size() >= 2 ? util::parse_int(words[1], 1, 65535) : util::Result<std::int64_t>::failure("");
  if (!port) {
    r.failure = LinkFailure::server_setup;
    r.problem = "an address that is not \"IP PORT\": " + *value;
    return r;
  }
  r.server_device = words.size() >= 3 ? words[2] : "";
  const PingpongSpec pp{spec.exe, spec.provider, spec.port};
  const auto measured = run_client(pp, words[0], static_cast<int>(port.value()), left_until(deadline), stop);
  if (!measured) {
    const bool no_provider = measured.error().find("provider is not available") != std::string::npos;
    r.failure = no_provider ? LinkFailure::provider : LinkFailure::link;
    r.problem = measured.error();
    return r;
  }
  r.measure = measured.value();
  return r;
}

// This pod's part in the round: its server (for the pod before it in the ring) and its client
// (to the pod after it), at once; the client's report published. The server runs until its
// client is done, the deadline, or (`until_done`) the head's end of the round.
std::optional<LinkReport> take_part(KvStore& kv, const RoundSpec& spec, const std::string& prefix,
                                    Clock::time_point deadline, bool until_done, const std::stop_token& stop) {
  const RingPart part = ring_part(spec.ordinal, spec.nodes);
  std::atomic<bool> server_done{false};
  std::jthread server;
  if (part.serves) {
    std::string published;
    if (!spec.tool_problem.empty()) {
      published = "!" + spec.tool_problem;
    } else if (!spec.address_problem.empty()) {
      published = "!no address of its own: " + spec.address_problem;
    } else if (const std::string busy = port_problem(spec.port); !busy.empty()) {
      published = "!" + busy;
    } else {
      const PingpongSpec pp{spec.exe, spec.provider, spec.port};
      server = std::jthread([pp, limit = left_until(deadline), &server_done](std::stop_token s) {
        run_server(pp, limit, s);
        server_done = true;
      });
      published = spec.address + " " + std::to_string(spec.port) + (spec.device.empty() ? "" : " " + spec.device);
    }
    put_until(kv, prefix + "addr/" + std::to_string(spec.ordinal), published, deadline, stop);
  }
  std::optional<LinkReport> mine;
  if (part.connects_to) {
    mine = client_part(kv, spec, prefix, *part.connects_to, deadline, stop);
    put_until(kv, prefix + "result/" + std::to_string(spec.ordinal), encode_report(*mine), deadline, stop);
  }
  while (server.joinable() && !server_done && Clock::now() < deadline && nap(k_poll, stop)) {
    if (until_done) {
      const auto done = kv.get(prefix + "done");
      if (done && done.value()) {
        break;
      }
    }
  }
  return mine;  // the jthread's stop kills a server still waiting for its client
}

}  // namespace

const char* to_string(LinkFailure f) {
  switch (f) {
    case LinkFailure::none:
      return "none";
    case LinkFailure::client_setup:
      return "client_setup";
    case LinkFailure::server_setup:
      return "server_setup";
    case LinkFailure::provider:
      return "provider";
    case LinkFailure::silent:
      return "silent";
    case LinkFailure::link:
      return "link";
  }
  return "link";
}

std::string encode_report(const LinkReport& r) {
  util::Json doc;
  doc["client"] = r.link.client;
  doc["server"] = r.link.server;
  doc["failure"] = to_string(r.failure);
  doc["latency_us"] = r.measure.latency_us;
  doc["bandwidth"] = r.measure.bandwidth;
  doc["message_bytes"] = r.measure.message_bytes;
  doc["seconds"] = r.measure.seconds;
  doc["problem"] = r.problem;
  doc["client_device"] = r.client_device;
  doc["server_device"] = r.server_device;
  return util::json_text(doc, -1);
}

std::optional<LinkReport> decode_report(const std::string& text) {
  const util::Json doc = util::Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return std::nullopt;
  }
  try {
    LinkReport r;
    r.link = {doc.at("client").get<int>(), doc.at("server").get<int>()};
    const std::string failure = doc.at("failure").get<std::string>();
    for (const LinkFailure f : {LinkFailure::none, LinkFailure::client_setup, LinkFailure::server_setup,
                                LinkFailure::provider, LinkFailure::silent, LinkFailure::link}) {
      if (failure == to_string(f)) {
        r.failure = f;
      }
    }
    r.measure = {doc.at("latency_us").get<double>(), doc.at("bandwidth").get<double>(),
                 doc.at("message_bytes").get<std::uint64_t>(), doc.value("seconds", 0.0)};
    r.problem = doc.at("problem").get<std::string>();
    r.client_device = doc.value("client_device", "");
    r.server_device = doc.value("server_device", "");
    return r;
  } catch (const util::Json::exception&) {
    return std::nullopt;
  }
}

GcsKv::GcsKv(gcs::GcsClient& client, milliseconds rpc_timeout, std::stop_token stop)
    : m_client(client), m_timeout(rpc_timeout), m_stop(std::move(stop)) {}

util::Result<bool> GcsKv::put(const std::string& key, const std::string& value) {
  const auto r = gcs::kv_put(m_client, key, value, k_fabric_kv_namespace, m_timeout, m_stop);
  return r ? util::Result<bool>(true) : util::Result<bool>::failure(r.error().describe());
}

util::Result<std::optional<std::string>> GcsKv::get(const std::string& key) {
  auto r = gcs::kv_get(m_client, key, k_fabric_kv_namespace, m_timeout, m_stop);
  if (!r) {
    return util::Result<std::optional<std::string>>::failure(r.error().describe());
  }
  return r.value();
}

util::Result<std::vector<std::string>> GcsKv::keys(const std::string& prefix) {
  auto r = gcs::kv_keys(m_client, prefix, k_fabric_kv_namespace, m_timeout, m_stop);
  if (!r) {
    return util::Result<std::vector<std::string>>::failure(r.error().describe());
  }
  return r.value();
}

std::vector<LinkReport> head_round(KvStore& kv, const RoundSpec& spec, std::stop_token stop) {
  const auto deadline = Clock::now() + spec.timeout;
  const std::string prefix = spec.cluster + "/" + spec.round + "/";
  put_until(kv, spec.cluster + "/go", spec.round, deadline, stop);
  std::optional<LinkReport> own = take_part(kv, spec, prefix, deadline, false, stop);
  const std::vector<Link> links = ring_links(spec.nodes);
  // Every client's report, until all are in or the bound (and the slack) has passed.
  const auto reports_by = deadline + k_report_slack;
  for (;;) {
    const auto keys = kv.keys(prefix + "result/");
    if ((keys && keys.value().size() >= links.size()) || Clock::now() + k_poll > reports_by || !nap(k_poll, stop)) {
      break;
    }
  }
  std::vector<LinkReport> reports;
  for (const Link& link : links) {
    std::optional<LinkReport> r;
    if (own && own->link == link) {
      r = own;
    } else if (const auto got = kv.get(prefix + "result/" + std::to_string(link.client)); got && got.value()) {
      r = decode_report(*got.value());
    }
    if (!r) {
      r = LinkReport{};
      r->link = link;
      r->failure = LinkFailure::silent;
      r->problem = name_of(spec, link.client) + " reported no result within " + util::format_duration(spec.timeout);
    }
    reports.push_back(*r);
  }
  kv.put(prefix + "done", std::to_string(reports.size()));
  return reports;
}

void skip_round(KvStore& kv, const RoundSpec& spec) { kv.put(spec.cluster + "/go", k_skip); }

std::string worker_round(KvStore& kv, const RoundSpec& spec, std::stop_token stop) {
  const auto go = await_key(kv, spec.cluster + "/go", Clock::now() + spec.go_wait, k_go_poll, stop);
  if (!go) {
    return stop.stop_requested() ? "stopped"
                                 : "the head started no fabric check within " + util::format_duration(spec.go_wait) +
                                       " (is --fabric-check on in the head?)";
  }
  if (*go == k_skip) {
    return "the head skipped it: the barrier passed without every pod (a quorum)";
  }
  const std::string prefix = spec.cluster + "/" + *go + "/";
  if (const auto done = kv.get(prefix + "done"); done && done.value()) {
    return "the gang's fabric check already ran for this cluster";
  }
  const auto deadline = Clock::now() + spec.timeout;
  const std::optional<LinkReport> mine = take_part(kv, spec, prefix, deadline, true, stop);
  if (!mine) {
    return "took part as a server";
  }
  if (mine->failure != LinkFailure::none) {
    return "link to " + name_of(spec, mine->link.server) + " failed: " + mine->problem;
  }
  return "link to " + name_of(spec, mine->link.server) + ": " + fmt::format("{:.1f} us", mine->measure.latency_us) +
         ", " + format_rate(mine->measure.bandwidth) + " (the head judges it)";
}

}  // namespace launcher::gang
