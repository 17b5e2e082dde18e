// What issue 19 adds to a plan and its settings: workers hand Ray's own SIGTERM drain over to
// raylaunch (RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0), a quorum shows in the join barrier, the
// new settings refuse what cannot work, and this image's Ray and Python versions are read from
// its files (a fake virtualenv and a fake system Python here).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "plan/plan.hpp"
#include "plan/ray_install.hpp"

using namespace launcher;
using fixtures::NodeTree;
using fixtures::TempDir;
namespace fs = std::filesystem;

namespace {

PodFacts pod(const NodeTree& tree, const std::string& hostname, EnvMap env = {}) {
  PodFacts f = gather_pod_facts(fixtures::config({{"host_root", tree.path()}, {"hostname", hostname}}, env), env,
                                fixtures::eks_limits());
  f.node.shm = ShmFacts{64ULL << 30, 64ULL << 30, true};
  return f;
}

const EnvVar* var(const Plan& plan, const std::string& name) {
  for (const EnvVar& v : plan.env) {
    if (v.name == name) {
      return &v;
    }
  }
  return nullptr;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// <root>/venv: bin/python3 → <root>/usr/bin/python3.11, pyvenv.cfg, a ray dist-info.
fs::path fake_venv(const fs::path& root, const std::string& cfg, const std::vector<std::string>& dist_infos) {
  write(root / "usr/bin/python3.11", "");
  const fs::path venv = root / "venv";
  fs::create_directories(venv / "bin");
  fs::create_symlink(root / "usr/bin/python3.11", venv / "bin/python3");
  if (!cfg.empty()) {
    write(venv / "pyvenv.cfg", cfg);
  }
  for (const std::string& d : dist_infos) {
    write(venv / "lib/python3.11/site-packages" / d / "METADATA", "Name: ray\n");
  }
  return venv;
}

}  // namespace

TEST_CASE("a worker's plan turns Ray's own SIGTERM drain off, unless the user set it; the head's leaves it",
          "[plan][survive]") {
  const NodeTree tree("p4de", "training-1");
  const std::map<std::string, std::string> flags = {{"nodes", "4"}, {"namespace", "ml"}};
  const Plan worker = make_plan(fixtures::config(flags), pod(tree, "training-1"), {});
  const EnvVar* v = var(worker, "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S");
  REQUIRE(v != nullptr);
  CHECK(v->value == "0");
  CHECK(v->origin == Origin::raylaunch);
  CHECK_THAT(v->reason, Catch::Contains("raylaunch drains this worker's node itself on SIGTERM"));

  const EnvMap user = {{"RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S", "25"}};
  const Plan kept = make_plan(fixtures::config(flags, user), pod(tree, "training-1", user), {});
  CHECK(var(kept, "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S")->value == "25");
  CHECK(var(kept, "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S")->origin == Origin::user);

  const NodeTree head_tree("p4de", "training-0");
  const Plan head = make_plan(fixtures::config(flags), pod(head_tree, "training-0"), {"python3", "train.py"});
  CHECK(var(head, "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S") == nullptr);
}

TEST_CASE("a quorum shows in the plan's join barrier; none, or one of all nodes, shows nothing new", "[plan][survive]") {
  const NodeTree tree("p4de", "training-0");
  std::map<std::string, std::string> flags = {{"nodes", "4"}, {"namespace", "ml"}, {"min_nodes", "3"},
                                              {"quorum_grace", "90s"}};
  const Plan plan = make_plan(fixtures::config(flags), pod(tree, "training-0"), {"python3", "train.py"});
  CHECK_THAT(render_plan_text(plan), Catch::Contains("join barrier   wait up to 5m for 4 ALIVE nodes, or start with at "
                                                     "least 3 once they have been ALIVE 90s (--min-nodes)"));
  CHECK_THAT(render_plan_json(plan), Catch::Contains("\"min_nodes\": 3,\n  \"quorum_grace_ms\": 90000"));
  flags["min_nodes"] = "4";
  const Plan all = make_plan(fixtures::config(flags), pod(tree, "training-0"), {"python3", "train.py"});
  CHECK_FALSE(all.min_nodes);
  CHECK_THAT(render_plan_json(all), !Catch::Contains("min_nodes"));
}

TEST_CASE("the survival settings: defaults, and what cannot work is refused", "[config][survive][bad-input]") {
  const Config c = fixtures::config({});
  CHECK(c.head_watch == std::chrono::seconds(2));
  CHECK(c.restarts == 0);
  CHECK(c.restart_window == std::chrono::hours(1));
  CHECK_FALSE(c.min_nodes);
  CHECK(c.quorum_grace == std::chrono::seconds(60));
  CHECK(fixtures::config({{"head_watch", "off"}}).head_watch.count() == 0);
  CHECK(fixtures::config({{"head_watch", "0"}}).head_watch.count() == 0);
  CHECK(fixtures::config({{"quorum_grace", "0"}}).quorum_grace.count() == 0);

  auto error = [](const std::map<std::string, std::string>& flags) {
    int code = 0;
    const auto lines = fixtures::fatal_lines([&] { fixtures::config(flags); }, &code);
    CHECK(code == exit_code::usage);
    return lines.empty() ? std::string() : lines.front();
  };
  CHECK(error({{"head_watch", "100ms"}}) == "--head-watch: \"100ms\" is not valid (expected 0 or off, or a duration of "
                                           "at least 500ms such as 2s, 500ms or 1m)");
  CHECK(error({{"restarts", "-1"}}) == "--restarts: \"-1\" is not valid (expected a whole number from 0 to 1000)");
  CHECK(error({{"nodes", "4"}, {"min_nodes", "5"}}) ==
        "--min-nodes: 5 is more than nodes=4 (expected a quorum from 1 to 4)");
  CHECK(error({{"min_nodes", "0"}}) == "--min-nodes: \"0\" is not valid (expected a whole number from 1 to 100000)");
  CHECK_THAT(error({{"exec", "true"}, {"restarts", "2"}}),
             Catch::StartsWith("--exec and --restarts 2 cannot go together"));
}

TEST_CASE("this image's Ray and Python, read from a virtualenv's files", "[plan][survive]") {
  const TempDir tmp;
  const fs::path venv = fake_venv(tmp.path(), "home = /usr/bin\nversion = 3.11.2\n", {"ray-2.60.0.dist-info"});
  const InstalledRay r = read_installed_ray((venv / "bin/python3").string());
  CHECK(r.ray == "2.60.0");
  CHECK(r.python == "3.11.2");
  CHECK_THAT(r.source, Catch::Contains("ray-2.60.0.dist-info") && Catch::Contains("pyvenv.cfg"));
}

TEST_CASE("uv's and virtualenv's version_info, a ray_cpp beside ray, and what cannot be told", "[plan][survive]") {
  {
    const TempDir tmp;
    const fs::path venv = fake_venv(tmp.path(), "version_info = 3.11.7.final.0\n",
                                    {"ray-2.52.1.dist-info", "ray_cpp-2.52.1.dist-info"});
    const InstalledRay r = read_installed_ray((venv / "bin/python3").string());
    CHECK(r.ray == "2.52.1");
    CHECK(r.python == "3.11.7");
  }
  {
    // No pyvenv.cfg (a system interpreter): Python's major.minor only, from its name.
    const TempDir tmp;
    const fs::path venv = fake_venv(tmp.path(), "", {"ray-2.60.0.dist-info"});
    const InstalledRay r = read_installed_ray((venv / "bin/python3").string());
    CHECK(r.python == "3.11");
    CHECK_THAT(r.source, Catch::Contains("patch level not read"));
  }
  {
    // Two Ray installs side by side: neither is claimed.
    const TempDir tmp;
    const fs::path venv = fake_venv(tmp.path(), "version = 3.11.2\n", {"ray-2.60.0.dist-info", "ray-2.52.1.dist-info"});
    CHECK(read_installed_ray((venv / "bin/python3").string()).ray.empty());
  }
  CHECK(read_installed_ray("/usr/bin/env").source.find("/usr/bin/env") != std::string::npos);
  CHECK(read_installed_ray("python3").ray.empty());
  CHECK(read_installed_ray("").python.empty());
}

TEST_CASE("the pinned releases' own virtualenvs read as the versions they hold", "[plan][survive][.realray]") {
  // Not run by default (needs scripts/ray-venvs): build/tests/unittest "[.realray]"
  for (const char* version : {"2.9.3", "2.60.0"}) {
    const fs::path venv = fs::path("/root/.cache/raylaunch/ray") / version;
    if (!fs::exists(venv / "bin/python3")) {
      continue;
    }
    const InstalledRay r = read_installed_ray((venv / "bin/python3").string());
    CHECK(r.ray == version);
  }
}
