#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launcher {

// Ray node labels as settings give them (issue 28): the syntax Ray checks them against, the
// node pool's capacity type, and the parsers of the settings table's label rows.

// One label, key and value, as the user wrote it.
struct LabelPair {
  std::string key;
  std::string value;
};

// What a node pool says a node was bought as. Karpenter's karpenter.sh/capacity-type values
// (on-demand, spot, reserved: capacity reservations and Capacity Blocks, Karpenter >= 1.3) and
// EKS managed node groups' eks.amazonaws.com/capacityType (ON_DEMAND, SPOT, CAPACITY_BLOCK).
enum class CapacityType { on_demand, spot, reserved };

// "on-demand", "spot", "reserved": Karpenter's spelling, which raylaunch shows and labels with.
const char* to_string(CapacityType type);

// A label key as Kubernetes defines it and Ray checks it (ray/_private/label_utils.py
// validate_label_key, Ray 2.45+): an optional prefix, a DNS subdomain of at most 253
// characters (lowercase), then "/", then a name of 1-63 characters, alphanumeric at both
// ends with '-', '_' and '.' between.
bool is_label_key(std::string_view key);

// A label value: empty, or 1-63 characters as a key's name (validate_label_value).
bool is_label_value(std::string_view value);

namespace setting_parsers {

// A label value that must not be empty (the zone and region settings).
std::string label_value(const std::string& text, std::optional<std::string>& out);

// "k=v,k=v": the extra labels of --node-labels; each key once.
std::string node_labels(const std::string& text, std::vector<LabelPair>& out);

// Karpenter's or EKS's spelling of a capacity type (see CapacityType).
std::string capacity_type(const std::string& text, std::optional<CapacityType>& out);

}  // namespace setting_parsers

}  // namespace launcher
