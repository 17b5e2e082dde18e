#include <catch2/catch.hpp>
#include <algorithm>

#include "fixtures.hpp"
#include "plan/gcs_store.hpp"
#include "plan/plan.hpp"
#include "util/fatal.hpp"

using namespace launcher;

namespace {

// Pod `host` of a 3-node cluster on a workstation tree, with the store as the gcs-ft-rocksdb
// component sets it.
Plan store_plan(const fixtures::NodeTree& tree, const std::string& host, EnvMap env,
                std::map<std::string, std::string> flags = {}) {
  flags.insert({{"host_root", tree.path()}, {"hostname", host}, {"nodes", "3"}, {"namespace", "ml"},
                {"service", "training"}, {"checks", "warn"}});
  const Config config = fixtures::config(flags, env);
  return make_plan(config, gather_pod_facts(config, env, fixtures::eks_limits()), {"python", "train.py"});
}

EnvMap store_env() { return {{"RAY_gcs_storage", "rocksdb"}, {"RAY_gcs_storage_path", "/data/gcs"}}; }

const EnvVar* find_env(const Plan& plan, const std::string& name) {
  const auto it = std::find_if(plan.env.begin(), plan.env.end(), [&](const EnvVar& v) { return v.name == name; });
  return it == plan.env.end() ? nullptr : &*it;
}

RayInstall ray(const std::string& version, int major, int minor) {
  return {version, "/opt/venv/lib/python3.11/site-packages/ray-" + version + ".dist-info/METADATA", major, minor};
}

PodIdentity head_of(const std::string& ns) {
  PodIdentity id;
  id.role = Role::head;
  id.hostname = "training-0";
  id.base_name = "training";
  id.namespace_name = ns;
  return id;
}

}  // namespace

TEST_CASE("the head with the store: Ray's variables, the volume preflight last, Ray's start-up budget",
          "[gcs-store]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const Plan plan = store_plan(tree, "training-0", store_env());
  REQUIRE(find_env(plan, "RAY_gcs_storage") != nullptr);
  CHECK(find_env(plan, "RAY_gcs_storage")->value == "rocksdb");
  CHECK(find_env(plan, "RAY_gcs_storage")->origin == Origin::user);
  CHECK(find_env(plan, "RAY_gcs_storage_path")->value == "/data/gcs");
  CHECK(find_env(plan, "RAY_gcs_rpc_server_reconnect_timeout_s") == nullptr);  // workers only
  REQUIRE_FALSE(plan.actions.empty());
  const auto* prepare = std::get_if<PrepareGcsStore>(&plan.actions.back());
  REQUIRE(prepare != nullptr);
  CHECK(prepare->path == "/data/gcs");
  CHECK(prepare->min_free == 256ULL << 20);
  CHECK(prepare->owner == "ml/training");
  CHECK(describe(plan.actions.back()) ==
        "check the GCS store at /data/gcs (a directory, writable, fsync, at least 256Mi free, not in memory, no other "
        "cluster's database), claim it for ml/training and lock it while this pod runs");
  CHECK(render_plan_text(plan).find("check the GCS store at /data/gcs") != std::string::npos);
  CHECK(render_plan_json(plan).find("check the GCS store at /data/gcs") != std::string::npos);
  // The join timeout (5m) is longer than Ray's 120 s already.
  CHECK(plan.local_gcs_timeout == std::chrono::minutes(5));
  // No Ray beside the workstation tree: its version is unknown, a warning.
  const auto warn = std::find_if(plan.checks.begin(), plan.checks.end(),
                                 [](const Check& c) { return c.name == "gcs-store:ray-version"; });
  REQUIRE(warn != plan.checks.end());
  CHECK(warn->status == CheckStatus::warn);
}

TEST_CASE("with the store, the head's local GCS wait is at least Ray's budget", "[gcs-store]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  CHECK(store_plan(tree, "training-0", store_env(), {{"join_timeout", "30s"}}).local_gcs_timeout ==
        std::chrono::seconds(120));
  EnvMap env = store_env();
  env["RAY_gcs_server_port_wait_time_s"] = "400";  // Ray's own override of its budget
  CHECK(store_plan(tree, "training-0", env, {{"join_timeout", "30s"}}).local_gcs_timeout ==
        std::chrono::seconds(400));
  // Without the store: the join timeout, as before.
  CHECK(store_plan(tree, "training-0", {}, {{"join_timeout", "30s"}}).local_gcs_timeout == std::chrono::seconds(30));
}

TEST_CASE("a worker of a cluster with the store outlives its head's restart", "[gcs-store]") {
  const fixtures::NodeTree tree("workstation", "training-1");
  const Plan plan = store_plan(tree, "training-1", store_env());
  REQUIRE(find_env(plan, "RAY_gcs_rpc_server_reconnect_timeout_s") != nullptr);
  CHECK(find_env(plan, "RAY_gcs_rpc_server_reconnect_timeout_s")->value == "600");
  CHECK(find_env(plan, "RAY_gcs_rpc_server_reconnect_timeout_s")->reason.find("GCS reload from its volume") !=
        std::string::npos);
  CHECK(std::none_of(plan.actions.begin(), plan.actions.end(),
                     [](const Action& a) { return std::holds_alternative<PrepareGcsStore>(a); }));
  CHECK(plan.local_gcs_timeout == std::chrono::minutes(5));
}

TEST_CASE("the store given as flags reaches Ray through the environment", "[gcs-store]") {
  const fixtures::NodeTree tree("workstation", "training-0");
  const Plan plan = store_plan(tree, "training-0", {},
                               {{"gcs_storage", "rocksdb"}, {"gcs_storage_path", "/vol/gcs"}, {"gcs_storage_min_free", "1Gi"}});
  REQUIRE(find_env(plan, "RAY_gcs_storage_path") != nullptr);
  CHECK(find_env(plan, "RAY_gcs_storage_path")->value == "/vol/gcs");
  CHECK(find_env(plan, "RAY_gcs_storage_path")->origin == Origin::raylaunch);
  CHECK(find_env(plan, "RAY_gcs_storage")->reason.find("(from --gcs-storage)") != std::string::npos);
  const auto* prepare = std::get_if<PrepareGcsStore>(&plan.actions.back());
  REQUIRE(prepare != nullptr);
  CHECK(prepare->min_free == 1ULL << 30);
}

TEST_CASE("a Ray without the store is refused on the head with 64, before anything starts", "[gcs-store]") {
  const Config config = fixtures::config({{"nodes", "2"}}, store_env());
  try {
    plan_gcs_store(config, head_of("ml"), store_env(), ray("2.52.1", 2, 52));
    FAIL("expected a refusal");
  } catch (const Fatal& e) {
    CHECK(e.code() == 64);
    CHECK(std::string(e.what()) ==
          "RAY_gcs_storage=rocksdb: the installed Ray 2.52.1 "
          "(/opt/venv/lib/python3.11/site-packages/ray-2.52.1.dist-info/METADATA) has no embedded GCS store (added in "
          "Ray 2.60), and would keep the head's tables in memory: use Ray 2.60 or later, or RAY_REDIS_ADDRESS for GCS "
          "fault tolerance with Redis");
  }
  const GcsStorePlan ok = plan_gcs_store(config, head_of("ml"), store_env(), ray("2.60.0", 2, 60));
  CHECK(ok.checks.empty());
  CHECK(ok.preflight.has_value());
  // A worker's Ray is the head's (checked against it before ray start): never refused here.
  PodIdentity worker = head_of("ml");
  worker.role = Role::worker;
  CHECK_NOTHROW(plan_gcs_store(config, worker, store_env(), ray("2.52.1", 2, 52)));
}

TEST_CASE("the volume's owner is the cluster's namespace and name, the same for every head container",
          "[gcs-store]") {
  CHECK(owner_of(head_of("ml")) == "ml/training");
  CHECK(owner_of(head_of("")) == "training");
  PodIdentity other = head_of("ml");
  other.base_name = "training-b";
  CHECK(owner_of(other) != owner_of(head_of("ml")));
}

TEST_CASE("store settings that do not go together are refused with 64", "[gcs-store][config]") {
  auto refusal = [](const std::map<std::string, std::string>& flags, const EnvMap& env) {
    try {
      fixtures::config(flags, env);
    } catch (const Fatal& e) {
      CHECK(e.code() == 64);
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(refusal({}, {{"RAY_gcs_storage", "rocksdb"}}).find(
            "RAY_gcs_storage=rocksdb needs RAY_gcs_storage_path") != std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage", "rocksdb"}, {"RAY_gcs_storage_path", "/data/gcs"},
                     {"RAY_REDIS_ADDRESS", "redis:6379"}})
            .find("RAY_gcs_storage=rocksdb and RAY_REDIS_ADDRESS are both set") != std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage", "redis"}}).find("RAY_gcs_storage=redis needs RAY_REDIS_ADDRESS") !=
        std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage_path", "/data/gcs"}}).find(
            "RAY_gcs_storage_path is set but RAY_gcs_storage is memory, not rocksdb") != std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage", "RocksDB"}}).find("one of memory|redis|rocksdb") != std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage", "rocksdb"}, {"RAY_gcs_storage_path", "data/gcs"}})
            .find("an absolute directory path") != std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage", "rocksdb"}, {"RAY_gcs_storage_path", std::string("/data/\x01gcs")}})
            .find("an absolute directory path") != std::string::npos);
  CHECK(refusal({{"gcs_storage_min_free", "lots"}}, {}).find("--gcs-storage-min-free") != std::string::npos);
  CHECK(refusal({}, {{"RAYLAUNCH_GCS_STORAGE_MIN_FREE", "lots"}}).find("RAYLAUNCH_GCS_STORAGE_MIN_FREE") !=
        std::string::npos);
  CHECK(refusal({}, {{"RAY_gcs_storage", "memory"}, {"RAY_REDIS_ADDRESS", "redis:6379"}}).empty());  // Redis FT
}
