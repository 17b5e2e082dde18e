#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "util/exit_codes.hpp"
#include "util/strings.hpp"

namespace launcher {

// The one exception type: it aborts a command *before anything was started* and is caught
// once, in `launcher_main`, which prints each line as `raylaunch: error: <line>` and exits
// with `code`. Once `run` has started a process, failures travel as values instead, so the
// supervisor can still stop Ray with its grace. Expected, recoverable outcomes are values
// (util/result.hpp), never exceptions.
class Fatal : public std::runtime_error {
 public:
  Fatal(int code, std::string line) : std::runtime_error(line), m_code(code), m_lines{std::move(line)} {}
  Fatal(int code, std::vector<std::string> lines)
      : std::runtime_error(lines.empty() ? std::string() : lines.front()), m_code(code), m_lines(std::move(lines)) {}
  int code() const { return m_code; }
  const std::vector<std::string>& lines() const { return m_lines; }

 private:
  int m_code;
  std::vector<std::string> m_lines;
};

// A bad setting: `what` names the setting and its source, `value` is what was given (the
// caller passes "<redacted>" for secrets; control bytes are escaped here so one error stays
// one line), `expected` says what would be accepted.
inline std::string bad_setting(const std::string& what, const std::string& value, const std::string& expected) {
  return what + ": \"" + util::printable(value) + "\" is not valid (expected " + expected + ")";
}

}  // namespace launcher
