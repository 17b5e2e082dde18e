#include <catch2/catch.hpp>

#include "gang/fabric_metrics.hpp"
#include "gang/fabric_verdict.hpp"

using namespace launcher::gang;

namespace {

LinkReport measured(int client, int server, double bandwidth, double latency_us = 20) {
  LinkReport r;
  r.link = {client, server};
  r.measure = {latency_us, bandwidth, 1 << 20};
  return r;
}

LinkReport failed(int client, int server, LinkFailure failure, std::string problem) {
  LinkReport r;
  r.link = {client, server};
  r.failure = failure;
  r.problem = std::move(problem);
  return r;
}

const VerdictInputs k_in{{"training-0", "training-1", "training-2"}, "efa", 3.125e9, "instance table"};

bool any_has(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines) {
    if (l.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("every link above the floor: passed, one table row each", "[gang][verdict]") {
  const auto v = judge_fabric({measured(0, 1, 10e9), measured(1, 2, 11e9), measured(2, 0, 12e9)}, k_in);
  CHECK_FALSE(v.failed);
  CHECK(v.problems.empty());
  REQUIRE(v.table.size() == 3);
  CHECK(v.table[0].find("training-0 → training-1") != std::string::npos);
  CHECK(v.table[0].find("10.00 GB/s") != std::string::npos);
  CHECK(v.table[0].find("20.0 us") != std::string::npos);
  CHECK(v.table[0].find("ok") != std::string::npos);
}

TEST_CASE("a pod in both of its slow links is named as the likely cause", "[gang][verdict]") {
  // training-1's node is slow: its two links (0 → 1 and 1 → 2) are below the floor.
  LinkReport slow_in = measured(0, 1, 1e9);
  slow_in.server_device = "rdmap16s27";
  const auto v = judge_fabric({slow_in, measured(1, 2, 0.9e9), measured(2, 0, 12e9)}, k_in);
  CHECK(v.failed);
  CHECK(any_has(v.table, "BELOW FLOOR"));
  CHECK(any_has(v.problems, "training-1 (rdmap16s27) carries 1.00 GB/s, below the floor of 3.12 GB/s (instance table)"));
  // The suspect first: the line a termination message shows.
  REQUIRE(v.problems.size() == 3);
  CHECK(v.problems[0].rfind("training-1 (rdmap16s27) is in both of its fabric links below the floor", 0) == 0);
  CHECK(v.problems[0].find("kubectl cordon") != std::string::npos);
  CHECK_FALSE(any_has(v.problems, "training-0 is in both"));
}

TEST_CASE("failed links name the side that failed and its fix", "[gang][verdict]") {
  const auto v = judge_fabric(
      {failed(0, 1, LinkFailure::link, "no answer from 10.0.0.2:47592 within 30s"),
       failed(1, 2, LinkFailure::server_setup, "fi_pingpong not found in /opt/amazon/efa/bin or on PATH"),
       failed(2, 0, LinkFailure::silent, "training-2 reported no result within 30s")},
      k_in);
  CHECK(v.failed);
  REQUIRE(v.problems.size() == 3);
  CHECK(v.problems[0].find("training-0 → training-1 failed: no answer") != std::string::npos);
  CHECK(v.problems[0].find("self rule") != std::string::npos);
  CHECK(v.problems[1].find("training-2 could not serve the test: fi_pingpong not found") != std::string::npos);
  CHECK(v.problems[2].find("training-2 reported no result within 30s") != std::string::npos);
  CHECK(v.problems[2].find("--fabric-check on in every pod") != std::string::npos);
}

TEST_CASE("no floor: only failures count", "[gang][verdict]") {
  VerdictInputs in = k_in;
  in.floor = 0;
  CHECK_FALSE(judge_fabric({measured(0, 1, 1e3)}, in).failed);
}

TEST_CASE("a report survives the KV: encoded, decoded", "[gang][verdict]") {
  LinkReport r = failed(2, 0, LinkFailure::provider, "the provider is not available here");
  r.client_device = "rdmap16s27";
  const auto back = decode_report(encode_report(r));
  REQUIRE(back);
  CHECK(back->link == r.link);
  CHECK(back->failure == LinkFailure::provider);
  CHECK(back->problem == r.problem);
  CHECK(back->client_device == "rdmap16s27");
  CHECK_FALSE(decode_report("not json"));
  CHECK_FALSE(decode_report("{\"client\":1}"));
}

TEST_CASE("the metrics: one series per link, labelled by pod names", "[gang][verdict]") {
  const std::vector<LinkReport> reports = {measured(0, 1, 10e9), measured(1, 2, 1e9),
                                           failed(2, 0, LinkFailure::silent, "x")};
  const auto v = judge_fabric(reports, k_in);
  const std::string text = render_fabric_metrics(reports, k_in, v, std::chrono::milliseconds(2500));
  CHECK(text.find("raylaunch_fabric_link_up{client=\"training-0\",server=\"training-1\"} 1\n") != std::string::npos);
  CHECK(text.find("raylaunch_fabric_link_up{client=\"training-1\",server=\"training-2\"} 0\n") != std::string::npos);
  CHECK(text.find("raylaunch_fabric_link_up{client=\"training-2\",server=\"training-0\"} 0\n") != std::string::npos);
  CHECK(text.find("raylaunch_fabric_link_bandwidth_bytes{client=\"training-0\",server=\"training-1\"} 10000000000\n") !=
        std::string::npos);
  CHECK(text.find("raylaunch_fabric_check_seconds 2.500\n") != std::string::npos);
  CHECK(text.find("raylaunch_fabric_check_passed 0\n") != std::string::npos);
}
