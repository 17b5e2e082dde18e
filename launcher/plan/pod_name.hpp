#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launcher {

// How Kubernetes names the pods of a StatefulSet (`<name>-<ordinal>`) and the hostnames of an
// Indexed Job with a subdomain (`<job>-<index>`): the one place that knows the rule.

// "training-3" → 3. nullopt without a "-<digits>" suffix, or with one Kubernetes never writes
// ("-03": ordinals have no leading zeros, so "training-03" must not pass for "training-3").
std::optional<int> ordinal_suffix(std::string_view hostname);

// "training-3" → "training"; a name without an ordinal suffix is returned unchanged.
std::string base_name(const std::string& hostname);

// base-0 … base-(nodes-1): the pods of the job, in order.
std::vector<std::string> pod_names(const std::string& base, int nodes);

}  // namespace launcher
