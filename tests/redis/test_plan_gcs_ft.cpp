#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>

#include "fixtures.hpp"
#include "plan/gcs_ft.hpp"
#include "plan/plan.hpp"

using namespace launcher;

namespace {

constexpr const char* k_password = "Pl4n-Secret-Value";

// A plan of pod `host` of a 3-node cluster on a workstation tree, with the Redis of GCS fault
// tolerance in its environment as the gcs-ft component sets it.
Plan ft_plan(const fixtures::NodeTree& tree, const std::string& host, EnvMap env) {
  const std::map<std::string, std::string> flags = {
      {"host_root", tree.path()}, {"hostname", host}, {"nodes", "3"}, {"namespace", "ml"}, {"service", "training"},
      {"checks", "warn"}};
  const Config config = fixtures::config(flags, env);
  return make_plan(config, gather_pod_facts(config, env, fixtures::eks_limits()), {"python", "train.py"});
}

EnvMap ft_env() {
  return {{"RAY_REDIS_ADDRESS", "redis://redis.redis.svc:6379"},
          {"RAY_external_storage_namespace", "blue-run"},
          {"REDIS_USERNAME", "ray"},
          {"REDIS_PASSWORD", k_password}};
}

const EnvVar* find_env(const Plan& plan, const std::string& name) {
  const auto it = std::find_if(plan.env.begin(), plan.env.end(), [&](const EnvVar& v) { return v.name == name; });
  return it == plan.env.end() ? nullptr : &*it;
}

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

}  // namespace

TEST_CASE("the head of an FT cluster waits for Redis and gives ray start the real credentials", "[gcs-ft]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const Plan plan = ft_plan(tree, "training-0", ft_env());
  CHECK(has(plan.ray_start, "--redis-password=" + std::string(k_password)));  // run executes this argv
  CHECK(has(plan.ray_start, "--redis-username=ray"));
  REQUIRE_FALSE(plan.actions.empty());
  const auto* wait = std::get_if<WaitForRedis>(&plan.actions.back());
  REQUIRE(wait != nullptr);
  CHECK(wait->address.text() == "redis.redis.svc:6379");
  CHECK(wait->username == std::optional<std::string>("ray"));
  CHECK(wait->password);
  CHECK(wait->storage_namespace == "blue-run");
  CHECK(wait->timeout == std::chrono::minutes(5));
  CHECK(describe(plan.actions.back()) ==
        "wait up to 5m for Redis at redis.redis.svc:6379 to answer PING (AUTH as ray with REDIS_PASSWORD); "
        "storage namespace \"blue-run\"");
  REQUIRE(find_env(plan, "RAY_REDIS_ADDRESS") != nullptr);
  CHECK(find_env(plan, "RAY_REDIS_ADDRESS")->value == "redis://redis.redis.svc:6379");
  CHECK(find_env(plan, "RAY_REDIS_ADDRESS")->origin == Origin::user);
  CHECK(find_env(plan, "RAY_external_storage_namespace")->value == "blue-run");
  CHECK(find_env(plan, "RAY_gcs_rpc_server_reconnect_timeout_s") == nullptr);  // workers only
}

TEST_CASE("no rendering of the plan shows the Redis password", "[gcs-ft][secret]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const Plan plan = ft_plan(tree, "training-0", ft_env());
  const std::string text = render_plan_text(plan);
  const std::string json = render_plan_json(plan);
  CHECK(text.find(k_password) == std::string::npos);
  CHECK(json.find(k_password) == std::string::npos);
  CHECK(text.find("'--redis-password=***'") != std::string::npos);
  CHECK(json.find("\"--redis-password=***\"") != std::string::npos);
  CHECK(text.find("wait up to 5m for Redis at redis.redis.svc:6379") != std::string::npos);
  for (const Action& a : plan.actions) {
    CHECK(describe(a).find(k_password) == std::string::npos);
  }
}

TEST_CASE("the password is redacted in either form of the option", "[gcs-ft][secret]") {
  CHECK(redacted_argv({"ray", "start", "--redis-password=x y", "--block"}) ==
        std::vector<std::string>{"ray", "start", "--redis-password=***", "--block"});
  CHECK(redacted_argv({"python", "--redis-password", "x y", "--lr", "1"}) ==
        std::vector<std::string>{"python", "--redis-password", "***", "--lr", "1"});
  CHECK(display_argv({"ray", "--redis-password=it's"}) == "ray '--redis-password=***'");
}

TEST_CASE("workers of an FT cluster outlive a head restart", "[gcs-ft]") {
  const fixtures::NodeTree tree("workstation", "training-2");
  const Plan plan = ft_plan(tree, "training-2", ft_env());
  const EnvVar* reconnect = find_env(plan, "RAY_gcs_rpc_server_reconnect_timeout_s");
  REQUIRE(reconnect != nullptr);
  CHECK(reconnect->value == "600");
  CHECK(reconnect->origin == Origin::raylaunch);
  CHECK(reconnect->reason.find("Ray's default 60 s") != std::string::npos);
  CHECK(std::none_of(plan.ray_start.begin(), plan.ray_start.end(),
                     [](const std::string& a) { return a.starts_with("--redis-"); }));
  CHECK(std::none_of(plan.actions.begin(), plan.actions.end(),
                     [](const Action& a) { return std::holds_alternative<WaitForRedis>(a); }));

  EnvMap env = ft_env();
  env["RAY_gcs_rpc_server_reconnect_timeout_s"] = "900";
  const Plan mine = ft_plan(tree, "training-2", env);
  CHECK(find_env(mine, "RAY_gcs_rpc_server_reconnect_timeout_s")->value == "900");
  CHECK(find_env(mine, "RAY_gcs_rpc_server_reconnect_timeout_s")->origin == Origin::user);
}

TEST_CASE("without a Redis address nothing of GCS fault tolerance is planned", "[gcs-ft]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const Plan plan = ft_plan(tree, "training-0", {{"REDIS_PASSWORD", k_password}});
  CHECK(find_env(plan, "RAY_REDIS_ADDRESS") == nullptr);
  CHECK(std::none_of(plan.ray_start.begin(), plan.ray_start.end(),
                     [](const std::string& a) { return a.starts_with("--redis-"); }));
  CHECK(std::none_of(plan.actions.begin(), plan.actions.end(),
                     [](const Action& a) { return std::holds_alternative<WaitForRedis>(a); }));
}

TEST_CASE("a namespace left at Ray's default is a warning on the head", "[gcs-ft]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  EnvMap env = ft_env();
  env.erase("RAY_external_storage_namespace");
  const Plan plan = ft_plan(tree, "training-0", env);
  const auto it = std::find_if(plan.checks.begin(), plan.checks.end(),
                               [](const Check& c) { return c.name == "gcs-ft:namespace"; });
  REQUIRE(it != plan.checks.end());
  CHECK(it->status == CheckStatus::warn);
  CHECK(find_env(plan, "RAY_external_storage_namespace")->value == "default");
}

namespace {

// A virtualenv as pip leaves it: bin/ray and lib/python3.11/site-packages/ray-VERSION.dist-info.
struct FakeVenv {
  std::string dir;
  explicit FakeVenv(const std::string& version) {
    char name[] = "/tmp/raylaunch-venv-XXXXXX";
    dir = mkdtemp(name);
    const std::string site = dir + "/lib/python3.11/site-packages";
    for (const std::string& d : {dir + "/bin", dir + "/lib", dir + "/lib/python3.11", site}) {
      mkdir(d.c_str(), 0755);
    }
    std::ofstream(dir + "/bin/ray") << "#!" << dir << "/bin/python\n";
    chmod((dir + "/bin/ray").c_str(), 0755);
    if (!version.empty()) {
      const std::string info = site + "/ray-" + version + ".dist-info";
      mkdir(info.c_str(), 0755);
      std::ofstream(info + "/METADATA") << "Metadata-Version: 2.1\nName: ray\nVersion: " << version
                                        << "\nSummary: Ray\n\nVersion: 9.9.9 (a README line, not a header)\n";
    }
  }
  ~FakeVenv() { std::system(("rm -rf '" + dir + "'").c_str()); }
};

}  // namespace

TEST_CASE("REDIS_USERNAME with a Ray whose ray start has no --redis-username (< 2.41): refused first", "[gcs-ft]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const FakeVenv old("2.40.0");
  EnvMap env = ft_env();
  env["RAYLAUNCH_VENV"] = old.dir;
  try {
    (void)ft_plan(tree, "training-0", env);
    FAIL("no Fatal");
  } catch (const Fatal& e) {
    CHECK(e.code() == 64);
    CHECK(std::string(e.what()) == "REDIS_USERNAME=ray: the installed Ray 2.40.0 (" + old.dir +
                                       "/lib/python3.11/site-packages/ray-2.40.0.dist-info/METADATA) has no `ray start "
                                       "--redis-username` (added in Ray 2.41): use Ray 2.41 or later, or unset "
                                       "REDIS_USERNAME and give Redis' default user the password");
  }
  SECTION("workers never pass it: no refusal there") {
    CHECK_NOTHROW(ft_plan(tree, "training-1", env));
  }
  SECTION("Ray 2.41 has it") {
    const FakeVenv fresh("2.41.0");
    env["RAYLAUNCH_VENV"] = fresh.dir;
    const Plan plan = ft_plan(tree, "training-0", env);
    CHECK(has(plan.ray_start, "--redis-username=ray"));
  }
  SECTION("a version that cannot be read: a warning, Ray decides") {
    const FakeVenv unknown("");
    env["RAYLAUNCH_VENV"] = unknown.dir;
    const Plan plan = ft_plan(tree, "training-0", env);
    CHECK(std::any_of(plan.checks.begin(), plan.checks.end(), [](const Check& c) {
      return c.name == "gcs-ft:redis-username" && c.status == CheckStatus::warn;
    }));
  }
}
