#include <catch2/catch.hpp>

#include "gcs/node_table.hpp"
#include "ray_gcs.pb.h"

using launcher::gcs::AliveCount;
using launcher::gcs::count_alive;
using launcher::gcs::node_table_from_reply;
using launcher::gcs::NodeEntry;
using launcher::gcs::NodeTable;

namespace {

NodeEntry entry(const std::string& name, bool alive, const std::string& id = "00") {
  NodeEntry e;
  e.node_name = name;
  e.alive = alive;
  e.node_id_hex = id;
  e.address = "10.0.0.1";
  return e;
}

NodeTable table(std::vector<NodeEntry> nodes) {
  NodeTable t;
  t.nodes = std::move(nodes);
  return t;
}

const std::vector<std::string> k_four = {"training-0", "training-1", "training-2", "training-3"};

}  // namespace

TEST_CASE("node_table_from_reply decodes Ray's fields by number") {
  ray::rpc::GetAllNodeInfoReply reply;
  ray::rpc::GcsNodeInfo* n = reply.add_node_info_list();
  n->set_node_id(std::string("\x01\xab", 2) + std::string(26, '\0'));
  n->set_node_manager_address("10.1.2.3");
  n->set_node_manager_port(6380);
  n->set_node_name("training-1");
  n->set_state(ray::rpc::GcsNodeInfo::DEAD);
  n->set_is_head_node(true);
  n->set_start_time_ms(1000);
  n->set_end_time_ms(2000);
  n->mutable_death_info()->set_reason(ray::rpc::NodeDeathInfo::UNEXPECTED_TERMINATION);
  n->mutable_death_info()->set_reason_message("health check failed");
  reply.set_total(7);

  const NodeTable t = node_table_from_reply(reply);
  REQUIRE(t.nodes.size() == 1);
  const NodeEntry& e = t.nodes[0];
  CHECK(e.node_id_hex.size() == 56);
  CHECK(e.node_id_hex.substr(0, 4) == "01ab");
  CHECK(e.address == "10.1.2.3");
  CHECK(e.node_manager_port == 6380);
  CHECK(e.node_name == "training-1");
  CHECK_FALSE(e.alive);
  CHECK(e.is_head);
  CHECK(e.start_time_ms == 1000);
  CHECK(e.end_time_ms == 2000);
  CHECK(e.death_reason == "UNEXPECTED_TERMINATION: health check failed");
  CHECK(t.total == 7);
}

TEST_CASE("the wire numbers are Ray's (gcs.proto, gcs_service.proto)") {
  // Field numbers, checked through the descriptors so a renumbering cannot slip in.
  const auto* info = ray::rpc::GcsNodeInfo::descriptor();
  CHECK(info->FindFieldByName("node_id")->number() == 1);
  CHECK(info->FindFieldByName("node_manager_address")->number() == 2);
  CHECK(info->FindFieldByName("node_manager_port")->number() == 5);
  CHECK(info->FindFieldByName("state")->number() == 7);
  CHECK(info->FindFieldByName("node_name")->number() == 12);
  CHECK(info->FindFieldByName("start_time_ms")->number() == 23);
  CHECK(info->FindFieldByName("end_time_ms")->number() == 24);
  CHECK(info->FindFieldByName("is_head_node")->number() == 25);
  CHECK(info->FindFieldByName("death_info")->number() == 29);
  // Declared only so they do not land in UnknownFieldSet; numbers and wire types are Ray's.
  CHECK(info->FindFieldByName("resources_total_entries")->number() == 11);
  CHECK(info->FindFieldByName("labels_entries")->number() == 26);
  CHECK(info->FindFieldByName("state_snapshot")->number() == 28);
  CHECK(info->FindFieldByName("session_dir")->number() == 33);
  const auto* reply = ray::rpc::GetAllNodeInfoReply::descriptor();
  CHECK(reply->FindFieldByName("status")->number() == 1);
  CHECK(reply->FindFieldByName("node_info_list")->number() == 2);
  CHECK(reply->FindFieldByName("total")->number() == 3);
  CHECK(ray::rpc::CheckAliveReply::descriptor()->FindFieldByName("ray_version")->number() == 2);
  CHECK(ray::rpc::GetAllNodeInfoRequest::descriptor()->FindFieldByName("node_selectors")->number() == 2);
  // The empty request is 0 bytes on the wire: valid on every Ray 2.x.
  CHECK(ray::rpc::GetAllNodeInfoRequest().ByteSizeLong() == 0);
  CHECK(ray::rpc::CheckAliveRequest().ByteSizeLong() == 0);
}


TEST_CASE("count_alive counts ALIVE rows once per pod and names the missing") {
  SECTION("in order, all there") {
    const AliveCount c = count_alive(
        table({entry("training-0", true), entry("training-1", true), entry("training-2", true),
               entry("training-3", true)}),
        k_four);
    CHECK(c.distinct_alive() == 4);
    CHECK(c.missing.empty());
  }
  SECTION("DEAD rows do not count, and the pod is missing") {
    const AliveCount c =
        count_alive(table({entry("training-0", true), entry("training-1", true), entry("training-2", false)}), k_four);
    CHECK(c.distinct_alive() == 2);
    CHECK(c.dead_entries == 1);
    CHECK(c.missing == std::vector<std::string>{"training-2", "training-3"});
  }
  SECTION("a restarted pod's stale ALIVE row is counted once") {
    const AliveCount c = count_alive(table({entry("training-0", true, "a"), entry("training-1", true, "b"),
                                            entry("training-1", true, "c"), entry("training-1", false, "d")}),
                                     k_four);
    CHECK(c.alive_entries == 3);
    CHECK(c.distinct_alive() == 2);
    CHECK(c.duplicated == std::vector<std::string>{"training-1"});
  }
  SECTION("a dead row and a new alive row of the same pod: the pod is alive") {
    const AliveCount c = count_alive(table({entry("training-3", false, "a"), entry("training-3", true, "b")}), k_four);
    CHECK(c.distinct_alive() == 1);
    CHECK(c.missing == std::vector<std::string>{"training-0", "training-1", "training-2"});
  }
  SECTION("without expected names nothing is missing, and strays are not flagged") {
    const AliveCount c = count_alive(table({entry("x", true), entry("y", true)}), {});
    CHECK(c.distinct_alive() == 2);
    CHECK(c.missing.empty());
    CHECK(c.unexpected.empty());
  }
  SECTION("a pod outside the expected names is reported, and still counted") {
    const AliveCount c = count_alive(table({entry("training-0", true), entry("other-7", true)}), k_four);
    CHECK(c.distinct_alive() == 2);
    CHECK(c.unexpected == std::vector<std::string>{"other-7"});
  }
  SECTION("an empty node_name falls back to the IP") {
    NodeEntry a = entry("", true, "a");
    NodeEntry b = entry("", true, "b");
    b.address = "10.0.0.2";
    const AliveCount c = count_alive(table({a, b}), {});
    CHECK(c.alive_pods == std::vector<std::string>{"10.0.0.1", "10.0.0.2"});
  }
}

TEST_CASE("progress_line is one line at any scale") {
  AliveCount c = count_alive(table({entry("training-0", true), entry("training-1", true), entry("training-3", true)}),
                             k_four);
  CHECK(progress_line(c, 4) == "3/4 nodes alive; missing: training-2");
  std::vector<std::string> many;
  for (int i = 0; i < 4096; ++i) {
    many.push_back("t-" + std::to_string(i));
  }
  c = count_alive(table({entry("t-0", true)}), many);
  CHECK(progress_line(c, 4096, 3) == "1/4096 nodes alive; missing: t-1, t-2, t-3 and 4092 more");
}

TEST_CASE("a node under another name is counted, never called missing once enough are alive (issue 26)") {
  // `raylaunch wait --nodes 1` on a pod whose Ray was started without --node-name: its one node
  // is named after its IP. The barrier is done, and the line must not say the pod is missing.
  const AliveCount one = count_alive(table({entry("10.0.0.5", true)}), {"training-0"});
  CHECK(progress_line(one, 1) == "1/1 nodes alive; alive under other names: 10.0.0.5");
  // Too few alive: the names without a row are missing, and the stray is named beside them.
  const AliveCount three =
      count_alive(table({entry("training-0", true), entry("training-1", true), entry("other-7", true)}), k_four);
  CHECK(progress_line(three, 4) ==
        "3/4 nodes alive; missing: training-2, training-3; alive under other names: other-7");
}
