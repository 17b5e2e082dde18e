#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "plan/pod_facts.hpp"
#include "plan/pod_identity.hpp"
#include "plan/ray_install.hpp"
#include "util/json.hpp"

namespace launcher {

// Ray node labels from the pod (issue 28): what `ray start --labels` says about this node, so that
// a task's `label_selector` or a placement group's `bundle_label_selector` can ask for a zone, a
// market type, an accelerator or one pod. Pure.

// Ray's own keys (src/ray/common/constants.h kLabelKeyNode*, exported by ray._raylet at Ray 2.60).
inline constexpr const char* k_label_zone = "ray.io/availability-zone";
inline constexpr const char* k_label_region = "ray.io/availability-region";
inline constexpr const char* k_label_market_type = "ray.io/market-type";
inline constexpr const char* k_label_accelerator = "ray.io/accelerator-type";
// raylaunch's keys, for what Ray has no key of its own for. Not under ray.io/: that prefix is Ray's
// namespace (Ray before 2.45 refuses any user key there), and a key raylaunch made up there could
// meet one Ray defines later. Kubernetes' convention: the prefix names who owns the key.
inline constexpr const char* k_label_pod_name = "raylaunch/pod-name";
inline constexpr const char* k_label_pod_index = "raylaunch/pod-index";
inline constexpr const char* k_label_capacity_type = "raylaunch/capacity-type";

struct NodeLabel {
  std::string key;
  std::string value;
  std::string source;  // where the value came from, or (left out) why it is not passed
};

struct NodeLabelsPlan {
  std::vector<NodeLabel> labels;    // passed, in order
  std::vector<NodeLabel> left_out;  // settled but not passed; `source` says why
  std::vector<std::string> args;    // {"--labels=…"}, or empty
  std::string ray_version;          // the installed Ray the syntax was chosen for; "" unknown
  std::string note;                 // why nothing (or not everything) is passed; "" when all is
};

// The labels of this pod: raylaunch's own (--default-labels on: zone, region, market type and
// capacity type from the settings, the accelerator from the instance table, the pod's name and
// index), then --node-labels, which win over raylaunch's for the same key. A label whose Ray
// variable is set in the pod (RAY_NODE_ZONE, …) is left to Ray, which sets it itself (2.49+). No
// `--labels` at all when the user's --ray-args have --labels or --labels-file (theirs win), when the
// installed Ray is unknown or older than 2.6; before 2.45 the JSON form without ray.io/ keys, which
// those releases refuse. Throws Fatal(64) when --node-labels has a ray.io/ key such a release refuses.
NodeLabelsPlan plan_node_labels(const Config& config, const PodIdentity& id, const PodFacts& facts);

// Ray's name for the GPUs of an instance type in raylaunch's table (p4de.24xlarge → "A100"): what
// Ray's own detection derives from the GPU's name, so both agree; nullopt for other types.
std::optional<std::string> accelerator_type(const std::string& instance_type);

// For `plan`: one line per label with its source, then what was left out and the note.
std::string render_labels_text(const NodeLabelsPlan& labels);
util::Json labels_json(const NodeLabelsPlan& labels);

}  // namespace launcher
