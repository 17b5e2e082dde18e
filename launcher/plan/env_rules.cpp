#include "plan/env_rules.hpp"

#include <stdexcept>

#include "env_rules_data.hpp"  // generated from env_rules.json (CMakeLists.txt)
#include "util/json.hpp"

namespace launcher {

namespace {

EnvRule parse_rule(const util::Json& j) {
  EnvRule r;
  r.name = j.at("name").get<std::string>();
  r.why = j.at("why").get<std::string>();
  r.fix = j.at("fix").get<std::string>();
  r.needs = j.value("needs", "");
  const util::Json& when = j.at("when");
  if (when.is_string() && when.get<std::string>() == "always") {
    r.when = EnvRule::When::always;
  } else if (when.contains("equals")) {
    r.when = EnvRule::When::equals;
    r.values = {when.at("equals").get<std::string>()};
  } else if (when.contains("not_equals")) {
    r.when = EnvRule::When::not_equals;
    r.values = {when.at("not_equals").get<std::string>()};
  } else if (when.contains("contains")) {
    r.when = EnvRule::When::contains;
    r.values = {when.at("contains").get<std::string>()};
  } else if (when.contains("contains_any")) {
    r.when = EnvRule::When::contains_any;
    r.values = when.at("contains_any").get<std::vector<std::string>>();
  } else if (when.contains("excludes_without")) {
    r.when = EnvRule::When::excludes_without;
    r.values = {when.at("excludes_without").get<std::string>()};
  } else {
    throw std::logic_error("env_rules.json: unknown `when` for " + r.name);
  }
  if (!r.needs.empty() && r.needs != "no-efa" && r.needs != "efa-zero-hugetlb") {
    throw std::logic_error("env_rules.json: unknown `needs` for " + r.name);
  }
  return r;
}

bool needs_hold(const std::string& needs, const NodeFacts& node) {
  if (needs == "no-efa") {
    return node.efa() == 0;
  }
  if (needs == "efa-zero-hugetlb") {
    return node.efa() > 0 && node.hugetlb_2mb_zero();
  }
  return true;
}

}  // namespace

bool EnvRule::matches(const std::string& value, const NodeFacts& node) const {
  bool hit = false;
  switch (when) {
    case When::always:
      hit = true;
      break;
    case When::equals:
      hit = value == values.front();
      break;
    case When::not_equals:
      hit = value != values.front();
      break;
    case When::contains:
    case When::contains_any:
      for (const std::string& v : values) {
        hit = hit || value.find(v) != std::string::npos;
      }
      break;
    case When::excludes_without:  // NCCL's "^" list: every interface not named is allowed
      hit = value.starts_with('^') && value.find(values.front()) == std::string::npos;
      break;
  }
  return hit && needs_hold(needs, node);
}

const std::vector<EnvRule>& env_rules() {
  static const std::vector<EnvRule> rules = [] {
    std::vector<EnvRule> out;
    try {
      const util::Json doc = util::Json::parse(k_env_rules_json);
      for (const util::Json& j : doc.at("rules")) {
        out.push_back(parse_rule(j));
      }
    } catch (const util::Json::exception& e) {
      throw std::logic_error(std::string("env_rules.json: ") + e.what());
    }
    return out;
  }();
  return rules;
}

}  // namespace launcher
