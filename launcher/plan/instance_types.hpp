#pragma once
#include <optional>
#include <string_view>

namespace launcher {

// What a full instance of a type brings to a pod that requests all of it.
struct InstanceShape {
  int gpus = 0;
  int efa = 0;  // vpc.amazonaws.com/efa devices
};

// Looks up an EC2 instance type ("p4de.24xlarge", as DMI product_name reports it).
// nullopt for types not in the table (a workstation, an unknown family).
std::optional<InstanceShape> instance_shape(std::string_view instance_type);

}  // namespace launcher
