#include "config/label_settings.hpp"

#include <set>
#include <utility>

#include "util/strings.hpp"

namespace launcher {

namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// A label name or non-empty value (Ray's LABEL_REGEX, Kubernetes' qualified name part):
// [A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?
bool is_label_name(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

// A DNS subdomain as Kubernetes requires of a key's prefix: lowercase labels of
// [a-z0-9]([a-z0-9-]*[a-z0-9])? joined by dots, at most 253 characters in all.
bool is_label_prefix(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t dot = s.find('.', start);
    const std::string_view part = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-') {
      return false;
    }
    for (char c : part) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      break;
    }
    start = dot + 1;
  }
  return true;
}

// Ray strips the spaces around each key and value of "k=v, k=v" (label_utils.py).
std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(' ') - b + 1);
}

constexpr const char* k_value_rule =
    "at most 63 characters, letters, digits, '-', '_' or '.', a letter or digit at both ends (Kubernetes label syntax, "
    "which Ray checks)";

}  // namespace

const char* to_string(CapacityType type) {
  switch (type) {
    case CapacityType::on_demand:
      return "on-demand";
    case CapacityType::spot:
      return "spot";
    case CapacityType::reserved:
      return "reserved";
  }
  return "?";
}

bool is_label_key(std::string_view key) {
  const std::size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) {
    return is_label_name(key);
  }
  return is_label_prefix(key.substr(0, slash)) && is_label_name(key.substr(slash + 1));
}

bool is_label_value(std::string_view value) { return value.empty() || is_label_name(value); }

namespace setting_parsers {

std::string label_value(const std::string& text, std::optional<std::string>& out) {
  out = text;
  return is_label_name(text) ? "" : std::string("a label value: ") + k_value_rule;
}

std::string node_labels(const std::string& text, std::vector<LabelPair>& out) {
  out.clear();
  const char* expected =
      "labels as key=value,key=value (a key: an optional DNS-subdomain prefix and '/', then a name of at most 63 "
      "letters, digits, '-', '_' or '.'; a value: the same rule, or empty), each key once";
  std::set<std::string> keys;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string pair = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t eq = pair.find('=');
    if (eq == std::string::npos) {
      return expected;
    }
    LabelPair label{trim(pair.substr(0, eq)), trim(pair.substr(eq + 1))};
    if (!is_label_key(label.key) || !is_label_value(label.value) || !keys.insert(label.key).second) {
      return expected;
    }
    out.push_back(std::move(label));
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return "";
}

std::string capacity_type(const std::string& text, std::optional<CapacityType>& out) {
  // Karpenter's karpenter.sh/capacity-type, then EKS's eks.amazonaws.com/capacityType.
  static const std::pair<const char*, CapacityType> k_names[] = {
      {"on-demand", CapacityType::on_demand}, {"spot", CapacityType::spot},
      {"reserved", CapacityType::reserved},   {"ON_DEMAND", CapacityType::on_demand},
      {"SPOT", CapacityType::spot},           {"CAPACITY_BLOCK", CapacityType::reserved},
  };
  for (const auto& [name, type] : k_names) {
    if (text == name) {
      out = type;
      return "";
    }
  }
  return "on-demand, spot or reserved (karpenter.sh/capacity-type), or ON_DEMAND, SPOT or CAPACITY_BLOCK "
         "(eks.amazonaws.com/capacityType): the node pool's label of the node";
}

}  // namespace setting_parsers

}  // namespace launcher
