#include <catch2/catch.hpp>

#include "gcs/gcs_channel.hpp"
#include "gcs/status_render.hpp"

using namespace launcher::gcs;
using namespace std::chrono_literals;

TEST_CASE("RpcError describes itself in one line") {
  CHECK(RpcError{14, 0, "failed to connect", ""}.describe() == "UNAVAILABLE: failed to connect");
  CHECK(RpcError{4, 0, "", ""}.describe() == "DEADLINE_EXCEEDED");
  CHECK(RpcError{0, 4, "Invalid", ""}.describe() == "GCS status 4: Invalid");
  CHECK(RpcError{16, 0, "x", ""}.unauthenticated());
}

TEST_CASE("status renders a stable JSON shape and a readable table") {
  NodeTable t;
  NodeEntry dead;
  dead.node_name = "training-1";
  dead.address = "10.0.0.2";
  dead.node_manager_port = 6380;
  dead.node_id_hex = std::string(56, 'b');
  dead.start_time_ms = 1'700'000'000'000;
  dead.end_time_ms = 1'700'000'060'000;
  dead.death_reason = "UNEXPECTED_TERMINATION";
  NodeEntry head;
  head.node_name = "training-0";
  head.address = "10.0.0.1";
  head.node_manager_port = 6380;
  head.alive = true;
  head.is_head = true;
  head.node_id_hex = std::string(56, 'a');
  head.start_time_ms = 1'700'000'000'000;
  NodeEntry w10 = head;
  w10.node_name = "training-10";
  w10.is_head = false;
  NodeEntry w2 = w10;
  w2.node_name = "training-2";
  t.nodes = {dead, w10, head, w2};

  const std::string json = render_status_json(t, "h:6379");
  CHECK(json.find("\"alive\": 3") != std::string::npos);
  CHECK(json.find("\"dead\": 1") != std::string::npos);
  // ALIVE first, head first, then numeric order: training-2 before training-10.
  const auto p0 = json.find("\"training-0\"");
  const auto p2 = json.find("\"training-2\"");
  const auto p10 = json.find("\"training-10\"");
  const auto p1 = json.find("\"training-1\"");
  CHECK(p0 < p2);
  CHECK(p2 < p10);
  CHECK(p10 < p1);
  CHECK(json.find("\"state\": \"DEAD\"") != std::string::npos);

  const std::string text = render_status_text(t, "h:6379");
  CHECK(text.find("2023-11-14T22:13:20Z") != std::string::npos);
  CHECK(text.find("3 alive (3 ALIVE rows), 1 dead") != std::string::npos);
  CHECK(format_time_ms(0) == "-");
}
