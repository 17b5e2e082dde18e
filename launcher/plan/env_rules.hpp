#pragma once
#include <string>
#include <vector>

#include "plan/pod_facts.hpp"

namespace launcher {

// A user environment value that is obsolete or harmful on EKS with EFA. The table is
// launcher/plan/env_rules.json, embedded at build time, and shared with the manifest
// validator (scripts/manifest_check/rules), so the two never disagree.
struct EnvRule {
  enum class When { always, equals, not_equals, contains, contains_any, excludes_without };
  std::string name;
  When when = When::always;
  std::vector<std::string> values;  // the operand(s) of `when`
  std::string needs;                // "", "no-efa" or "efa-zero-hugetlb": a node fact also required
  std::string why;
  std::string fix;

  // True when `value` (the user's) is harmful on this node.
  bool matches(const std::string& value, const NodeFacts& node) const;
};

// The rules, parsed once; a malformed table is a build defect (std::logic_error).
const std::vector<EnvRule>& env_rules();

}  // namespace launcher
