#include "plan/ray_start_args.hpp"

#include <algorithm>
#include <set>

#include "plan/gcs_ft.hpp"
#include "util/parse.hpp"

namespace launcher {

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;
// Ray's floor for the object store: OBJECT_STORE_MINIMUM_MEMORY_BYTES = 75 MiB (ray_constants.py).
constexpr std::uint64_t k_ray_min_store = 75ULL << 20;
// Ray's caps: DEFAULT_OBJECT_STORE_MAX_MEMORY_BYTES = 200e9, DEFAULT_OBJECT_STORE_MEMORY_PROPORTION = 0.3.
constexpr std::uint64_t k_ray_max_store = 200'000'000'000ULL;

std::string option_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

}  // namespace

ObjectStoreSize plan_object_store(const Config& config, const NodeFacts& node) {
  if (config.object_store_memory) {
    return {*config.object_store_memory, "set by " + config.source_of("object_store_memory")};
  }
  if (!node.shm) {
    return {0, "no /dev/shm: left to Ray"};
  }
  const std::uint64_t shm = node.shm->total;
  // Headroom for NCCL's /dev/shm segments and DataLoader batches: max(8Gi, 10%), at most half.
  const std::uint64_t headroom = std::min(std::max(8 * k_gib, shm / 10), shm / 2);
  std::uint64_t store = shm - headroom;
  std::string reason = "/dev/shm " + util::format_size(shm) + " minus " + util::format_size(headroom) +
                       " headroom for NCCL and DataLoader";
  if (node.memory_bytes && store > *node.memory_bytes * 3 / 10) {
    store = *node.memory_bytes * 3 / 10;
    reason = "30% of memory " + util::format_size(*node.memory_bytes) + " (Ray's default share)";
  }
  if (store > k_ray_max_store) {
    store = k_ray_max_store;
    reason = "Ray's 200 GB cap";
  }
  if (store < k_ray_min_store) {
    return {0, "/dev/shm " + util::format_size(shm) + " is below Ray's 75Mi minimum: left to Ray"};
  }
  store -= store % 4096;  // whole pages
  return {store, reason};
}

std::vector<std::string> ray_start_argv(const Config& config, const PodIdentity& id, int num_gpus,
                                        const ObjectStoreSize& store) {
  std::vector<std::string> ours;
  const std::string port = std::to_string(id.ray_port);
  if (id.role == Role::head) {
    ours = {"--head", "--port=" + port, "--dashboard-host=0.0.0.0", "--disable-usage-stats"};
    // GCS fault tolerance: Ray takes the Redis credentials from these options only.
    const std::vector<std::string> redis = redis_credential_args(config, id);
    ours.insert(ours.end(), redis.begin(), redis.end());
  } else {
    ours = {"--address=" + id.head_address()};
  }
  ours.push_back("--node-name=" + id.hostname);
  ours.push_back("--num-gpus=" + std::to_string(num_gpus));
  if (store.bytes > 0) {
    ours.push_back("--object-store-memory=" + std::to_string(store.bytes));
  }
  ours.push_back("--node-manager-port=" + std::to_string(config.node_manager_port));
  ours.push_back("--metrics-export-port=" + std::to_string(config.metrics_export_port));
  // With --exec the head's raylaunch becomes the command, which will not supervise `ray start`:
  // without --block it returns once Ray runs, and Ray's processes live on by themselves.
  if (!(config.exec && id.role == Role::head)) {
    ours.push_back("--block");
  }

  std::set<std::string> user_options;
  for (const std::string& arg : config.ray_args) {
    if (arg.starts_with("--")) {
      user_options.insert(option_name(arg));
    }
  }
  std::vector<std::string> argv = {config.ray, "start"};
  for (const std::string& arg : ours) {
    if (user_options.count(option_name(arg)) == 0) {
      argv.push_back(arg);
    }
  }
  argv.insert(argv.end(), config.ray_args.begin(), config.ray_args.end());
  return argv;
}

}  // namespace launcher
