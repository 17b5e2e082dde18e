#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace launcher::util {

// JSON documents keep their members in insertion order (stable, diffable output).
using Json = nlohmann::ordered_json;

// `doc` as text, indented by `indent` (-1: one line). Strings that are not valid UTF-8 (a
// hostname, an argv element or a sysfs file can hold any bytes) get U+FFFD for the bad bytes:
// the output is always valid JSON.
inline std::string json_text(const Json& doc, int indent = 2) {
  return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace launcher::util
