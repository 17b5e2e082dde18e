#include "plan/node_labels.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "plan/node_checks.hpp"
#include "util/exit_codes.hpp"
#include "util/fatal.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// The GPU of each family of raylaunch's instance table (node_checks.cpp), named as Ray names it:
// Ray 2.60's NvidiaGPUAcceleratorManager (ray/_private/accelerators/nvidia_gpu.py) takes the
// model out of the first GPU's name, "NVIDIA A100-SXM4-80GB" → "A100", "NVIDIA H100 80GB HBM3" →
// "H100" (ray/util/accelerators/accelerators.py: A10G, L4, A100, H100, H200, B200). Ray's own
// detection gives the same value on these instances, so the two never disagree (a user label
// that differs from Ray's is kept, with Ray's warning: resource_and_label_spec.py _resolve_labels).
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> k_accelerators = {{
    {"p4d", "A100"},
    {"p4de", "A100"},
    {"p5", "H100"},
    {"p5e", "H200"},
    {"p5en", "H200"},
    {"p6-b200", "B200"},
    {"g5", "A10G"},
    {"g6", "L4"},
}};

// Ray's variables for its own default labels (src/ray/common/constants.h kNodeZoneEnv, …; read by
// ResourceAndLabelSpec._get_default_labels, Ray 2.49+), which KubeRay sets: where the pod has one,
// Ray sets the label itself and raylaunch stays out of its way.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> k_ray_variables = {{
    {k_label_zone, "RAY_NODE_ZONE"},
    {k_label_region, "RAY_NODE_REGION"},
    {k_label_market_type, "RAY_NODE_MARKET_TYPE"},
}};

// `ray start --labels` exists in every release checked from 2.6.3 on; until 2.44 it takes a JSON
// dict and refuses keys under ray.io/ (ray/_private/parameter.py → validate_node_labels); from 2.45
// it takes "k=v,k=v" and checks only the syntax (label_utils.py parse_node_labels_string).
constexpr int k_labels_minor = 6;
constexpr int k_string_form_minor = 45;

bool ray_key(const std::string& key) { return key.starts_with("ray.io/"); }

// The user's --ray-args give labels of their own: `--labels X`, `--labels=X` or `--labels-file`.
std::string user_labels_option(const std::vector<std::string>& ray_args) {
  for (const std::string& arg : ray_args) {
    const std::string name = arg.substr(0, arg.find('='));
    if (name == "--labels" || name == "--labels-file") {
      return name;
    }
  }
  return "";
}

std::vector<NodeLabel> default_labels(const Config& config, const PodIdentity& id, const PodFacts& facts) {
  std::vector<NodeLabel> out;
  if (config.zone) {
    out.push_back({k_label_zone, *config.zone, config.source_of(&Config::zone)});
  }
  if (config.region) {
    out.push_back({k_label_region, *config.region, config.source_of(&Config::region)});
  }
  if (config.capacity_type) {
    const std::string source = config.source_of(&Config::capacity_type);
    const CapacityType type = *config.capacity_type;
    // Ray's market types are spot and on-demand (Ray's docs and tests, KubeRay's examples): reserved
    // capacity is bought on demand, and is not taken back as spot is.
    out.push_back({k_label_market_type, type == CapacityType::spot ? "spot" : "on-demand",
                   source + (type == CapacityType::reserved ? " (reserved: bought on demand)" : "")});
    out.push_back({k_label_capacity_type, to_string(type), source});
  }
  if (const auto accelerator = accelerator_type(facts.node.instance_type)) {
    out.push_back({k_label_accelerator, *accelerator,
                   "instance table: " + facts.node.instance_type + " (Ray's own name for its GPUs)"});
  }
  out.push_back({k_label_pod_name, id.hostname, "hostname " + id.hostname});
  out.push_back({k_label_pod_index, std::to_string(id.ordinal), id.ordinal_source});
  return out;
}

// `labels` with the user's: a user's key replaces raylaunch's in place, new ones go last.
void merge_user_labels(const Config& config, std::vector<NodeLabel>& labels) {
  const std::string source = config.source_of(&Config::node_labels);
  for (const LabelPair& user : config.node_labels) {
    const auto same = std::find_if(labels.begin(), labels.end(), [&](const NodeLabel& l) { return l.key == user.key; });
    if (same != labels.end()) {
      *same = {user.key, user.value, source + " (replaces raylaunch's " + util::printable(same->value, 64) + ")"};
    } else {
      labels.push_back({user.key, user.value, source});
    }
  }
}

std::string labels_argument(const std::vector<NodeLabel>& labels, bool string_form) {
  if (string_form) {
    std::vector<std::string> pairs;
    for (const NodeLabel& l : labels) {
      pairs.push_back(l.key + "=" + l.value);
    }
    return "--labels=" + util::join(pairs, ",");
  }
  util::Json dict = util::Json::object();
  for (const NodeLabel& l : labels) {
    dict[l.key] = l.value;
  }
  return "--labels=" + dict.dump();
}

}  // namespace

std::optional<std::string> accelerator_type(const std::string& instance_type) {
  if (!instance_shape(instance_type)) {
    return std::nullopt;
  }
  const std::string_view family = std::string_view(instance_type).substr(0, instance_type.find('.'));
  for (const auto& [name, accelerator] : k_accelerators) {
    if (name == family) {
      return std::string(accelerator);
    }
  }
  return std::nullopt;
}

NodeLabelsPlan plan_node_labels(const Config& config, const PodIdentity& id, const PodFacts& facts) {
  NodeLabelsPlan plan;
  std::vector<NodeLabel> labels;
  if (config.default_labels) {
    for (NodeLabel& label : default_labels(config, id, facts)) {
      const auto ray_var = std::find_if(k_ray_variables.begin(), k_ray_variables.end(),
                                        [&](const auto& kv) { return kv.first == label.key; });
      const auto set = ray_var == k_ray_variables.end() ? facts.env.end() : facts.env.find(std::string(ray_var->second));
      if (set != facts.env.end() && !set->second.empty()) {
        plan.left_out.push_back({label.key, label.value,
                                 std::string(ray_var->second) + " is set: Ray sets " + label.key + " itself (Ray 2.49+)"});
        continue;
      }
      labels.push_back(std::move(label));
    }
  }
  merge_user_labels(config, labels);
  if (labels.empty()) {
    plan.note = "none (--default-labels off and no --node-labels)";
    return plan;
  }
  if (const std::string option = user_labels_option(config.ray_args); !option.empty()) {
    plan.left_out = std::move(labels);
    plan.note = config.source_of(&Config::ray_args) + " has " + option +
                ": the user's labels win, raylaunch passes none of its own (--node-labels adds to raylaunch's instead)";
    return plan;
  }
  const std::optional<RayInstall>& ray = facts.ray_install;
  if (!ray || !ray->at_least(2, k_labels_minor)) {
    plan.left_out = std::move(labels);
    plan.note = ray ? "Ray " + ray->version + " (" + ray->metadata + ") is older than 2.6, the first release "
                          "raylaunch knows to have ray start --labels: none passed"
                    : "the installed Ray's version is unknown (no ray-<version>.dist-info beside the ray script "
                      "on the PATH ray start runs with): no --labels, which an old Ray would refuse";
    return plan;
  }
  plan.ray_version = ray->version;
  const bool string_form = ray->at_least(2, k_string_form_minor);
  if (!string_form) {
    const std::string user_source = config.source_of(&Config::node_labels);
    for (const LabelPair& user : config.node_labels) {
      if (ray_key(user.key)) {
        throw Fatal(exit_code::usage,
                    user_source + ": " + util::printable(user.key, 300) + ": Ray " + ray->version +
                        " refuses keys under ray.io/ in ray start --labels (Ray 2.45+ takes them): use a key of "
                        "your own, or a newer Ray");
      }
    }
    std::vector<NodeLabel> kept;
    for (NodeLabel& label : labels) {
      if (ray_key(label.key)) {
        plan.left_out.push_back({label.key, label.value,
                                 "Ray " + ray->version + " refuses keys under ray.io/ in --labels (2.45+ takes them)"});
      } else {
        kept.push_back(std::move(label));
      }
    }
    labels = std::move(kept);
  }
  if (facts.env.contains("RAY_OVERRIDE_LABELS")) {
    plan.note = "RAY_OVERRIDE_LABELS is set: Ray's autoscaler labels in it replace these where keys meet";
  }
  if (!labels.empty()) {
    plan.args = {labels_argument(labels, string_form)};
  }
  plan.labels = std::move(labels);
  return plan;
}

std::string render_labels_text(const NodeLabelsPlan& labels) {
  std::string out;
  for (const NodeLabel& l : labels.labels) {
    out += "  " + util::printable(l.key + "=" + l.value, 512) + "  (" + util::printable(l.source, 512) + ")\n";
  }
  for (const NodeLabel& l : labels.left_out) {
    out += "  not passed: " + util::printable(l.key + "=" + l.value, 512) + "  (" + util::printable(l.source, 512) + ")\n";
  }
  if (!labels.note.empty()) {
    out += "  # " + util::printable(labels.note, 1024) + "\n";
  }
  return out;
}

util::Json labels_json(const NodeLabelsPlan& labels) {
  auto list = [](const std::vector<NodeLabel>& from) {
    util::Json out = util::Json::array();
    for (const NodeLabel& l : from) {
      out.push_back({{"key", l.key}, {"value", l.value}, {"source", l.source}});
    }
    return out;
  };
  return {{"passed", list(labels.labels)},
          {"not_passed", list(labels.left_out)},
          {"ray_version", labels.ray_version.empty() ? util::Json(nullptr) : util::Json(labels.ray_version)},
          {"note", labels.note}};
}

}  // namespace launcher
