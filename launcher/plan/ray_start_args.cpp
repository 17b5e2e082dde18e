#include "plan/ray_start_args.hpp"

#include <algorithm>
#include <set>

#include "plan/gcs_ft.hpp"

namespace launcher {

namespace {

std::string option_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

}  // namespace

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
