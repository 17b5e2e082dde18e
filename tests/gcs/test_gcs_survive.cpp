// The pure parts of what a worker asks its head to survive it (issue 19): node ids that may be
// sent back, this pod's own row, the head's cluster metadata and the version rule.
#include <catch2/catch.hpp>

#include "gcs/cluster_rpcs.hpp"
#include "gcs/cluster_versions.hpp"
#include "gcs/own_node.hpp"

using namespace launcher::gcs;

namespace {

const std::string k_id_a = "aa" + std::string(54, '1');  // 56 hex digits
const std::string k_id_b = "bb" + std::string(54, '2');

NodeEntry row(std::string name, std::string id_hex, bool alive, std::uint64_t start_ms, std::string death = "") {
  NodeEntry e;
  e.node_name = std::move(name);
  e.node_id_hex = std::move(id_hex);
  e.alive = alive;
  e.start_time_ms = start_ms;
  e.address = "198.18.1.2";
  e.node_manager_port = 6380;
  e.death_reason = std::move(death);
  return e;
}

}  // namespace

TEST_CASE("only a well-formed 28-byte id is ever sent back to the GCS") {
  const auto id = NodeId::from_hex(k_id_a);
  REQUIRE(id);
  CHECK(id->binary().size() == 28);
  CHECK(id->hex() == k_id_a);
  CHECK(NodeId::from_hex("AA" + std::string(54, '1'))->hex() == k_id_a);  // either case in, lowercase out
  for (const std::string& bad : {std::string(), std::string(54, 'a'), std::string(58, 'a'), std::string(55, 'a') + "g",
                                std::string(55, 'a') + " ", std::string(56, '\0')}) {
    INFO(bad.size());
    CHECK_FALSE(NodeId::from_hex(bad));
  }
}

TEST_CASE("this pod's row: the newest ALIVE one with its name, started after this container's ray start") {
  NodeTable t;
  t.nodes = {row("training-1", k_id_a, true, 1000),                   // the container before: still ALIVE
             row("training-1", k_id_b, true, 5000),                   // this raylet
             row("training-2", "cc" + std::string(54, '3'), true, 9000),
             row("training-1", "zz", true, 9999)};                    // a lying server's id: never chosen
  const auto own = own_node_in(t, "training-1");
  REQUIRE(own);
  CHECK(own->id.hex() == k_id_b);
  CHECK(own->raylet_address == "198.18.1.2:6380");
  // Before this raylet registers, the old container's row must not pass for it.
  NodeTable before;
  before.nodes = {row("training-1", k_id_a, true, 1000)};
  CHECK_FALSE(own_node_in(before, "training-1", 4000));
  CHECK(own_node_in(before, "training-1", 0));
  CHECK_FALSE(own_node_in(t, "training-9"));
}

TEST_CASE("no ALIVE row: not registered, or DEAD with Ray's reason") {
  NodeTable t;
  CHECK(no_own_node_line(t, "training-1") == "training-1 has no ALIVE row in the head's GCS (not registered)");
  t.nodes = {row("training-1", k_id_a, false, 1000, "EXPECTED_TERMINATION: received SIGTERM"),
             row("training-1", k_id_b, false, 2000, "UNEXPECTED_TERMINATION: health check failed")};
  CHECK(no_own_node_line(t, "training-1") ==
        "training-1 is DEAD in the head's GCS (UNEXPECTED_TERMINATION: health check failed)");
}

TEST_CASE("the head's cluster metadata: Ray's JSON, or why it cannot be read") {
  const auto ok = parse_cluster_metadata(
      R"({"ray_version": "2.60.0", "python_version": "3.11.2", "ray_init_cluster": false})");
  REQUIRE(ok.versions);
  CHECK(ok.versions->ray == "2.60.0");
  CHECK(ok.versions->python == "3.11.2");
  for (const char* bad : {"", "not json", "[]", R"({"ray_version": "2.60.0"})",
                                R"({"ray_version": 2, "python_version": "3.11.2"})"}) {
    INFO(bad);
    const auto r = parse_cluster_metadata(bad);
    CHECK_FALSE(r.versions);
    CHECK_FALSE(r.problem.empty());
  }
  // A lying server's value stays one bounded, printable line.
  const auto evil = parse_cluster_metadata(R"({"ray_version": ")" + std::string(5000, 'x') +
                                           R"(\n", "python_version": "3.11.2"})");
  REQUIRE(evil.versions);
  CHECK(evil.versions->ray.size() < 100);
  CHECK(evil.versions->ray.find('\n') == std::string::npos);
}

TEST_CASE("versions: Ray's must be equal, and Python's major.minor") {
  const RayVersions head{"2.60.0", "3.11.2"};
  CHECK_FALSE(compare_versions(head, {"2.60.0", "3.11.2"}, "venv", PythonMatch::patch).mismatch);
  const auto ray = compare_versions(head, {"2.52.1", "3.11.2"}, "/opt/venv/…/ray-2.52.1.dist-info", PythonMatch::patch);
  CHECK(ray.mismatch);
  CHECK(ray.line == "this worker has Ray 2.52.1 and Python 3.11.2 (/opt/venv/…/ray-2.52.1.dist-info), the head Ray "
                    "2.60.0 and Python 3.11.2: Ray refuses a node whose versions differ from the head's (fix: the same "
                    "image, or the same RAYLAUNCH_VENV, on every pod of the cluster)");
  const auto minor = compare_versions(head, {"2.60.0", "3.11.7"}, "venv", PythonMatch::minor);
  CHECK_FALSE(minor.mismatch);
  CHECK_FALSE(minor.warning);
  CHECK(minor.line.find("patch level differs") != std::string::npos);
  for (const PythonMatch level : {PythonMatch::patch, PythonMatch::minor}) {
    const auto other = compare_versions(head, {"2.60.0", "3.12.1"}, "venv", level);
    CHECK(other.mismatch);
    CHECK(other.line.starts_with("this worker has Ray 2.60.0 and Python 3.12.1 (venv), the head Ray 2.60.0 and "
                                 "Python 3.11.2: Ray refuses"));
  }
  // What this image cannot tell is not compared, and said.
  const auto unknown = compare_versions(head, {"2.60.0", ""}, "no pyvenv.cfg", PythonMatch::patch);
  CHECK_FALSE(unknown.mismatch);
  CHECK(unknown.line.find("Python's version not compared") != std::string::npos);
  // Only major.minor known here (no virtualenv: the interpreter's name): compared as far as it goes.
  const auto major_minor = compare_versions(head, {"2.60.0", "3.11"}, "/usr/bin/python3.11 (no pyvenv.cfg)",
                                            PythonMatch::patch);
  CHECK_FALSE(major_minor.mismatch);
  CHECK(major_minor.line == "Ray 2.60.0 and Python 3.11 as on the head (Python's patch level not compared: only 3.11 "
                            "is known here, /usr/bin/python3.11 (no pyvenv.cfg))");
  CHECK(compare_versions(head, {"2.60.0", "3.12"}, "/usr/bin/python3.12", PythonMatch::patch).mismatch);
  CHECK(python_match("minor") == PythonMatch::minor);
  CHECK(python_match("") == PythonMatch::patch);
  CHECK(python_match("bogus") == PythonMatch::patch);
}

TEST_CASE("versions: a Python patch-only difference is a warning, not a refusal (issue 26)") {
  // pyvenv.cfg says 3.11.2, as when the virtualenv was made; its interpreter was upgraded in place
  // since, and may well run 3.11.9 as the head does. Ray compares the running interpreters.
  const RayVersions head{"2.60.0", "3.11.9"};
  const auto c = compare_versions(head, {"2.60.0", "3.11.2"}, "/opt/venv/pyvenv.cfg", PythonMatch::patch);
  CHECK_FALSE(c.mismatch);
  CHECK(c.warning);
  CHECK(c.line.starts_with("Python's patch level differs: 3.11.2 here (/opt/venv/pyvenv.cfg), 3.11.9 on the head. "
                           "Not refused: a virtualenv's pyvenv.cfg keeps the version it was made with"));
  CHECK_THAT(c.line, Catch::Contains("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor"));
  // Ray's version and Python's minor still refuse.
  CHECK(compare_versions(head, {"2.52.1", "3.11.9"}, "venv", PythonMatch::patch).mismatch);
  CHECK(compare_versions(head, {"2.60.0", "3.10.9"}, "venv", PythonMatch::patch).mismatch);
}
