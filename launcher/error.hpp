#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "exit_codes.hpp"

namespace launcher {

// The one exception type: it aborts the command and is caught once, in `launcher_main`,
// which prints each line as `raylaunch: error: <line>` and exits with `code`.
// Expected, recoverable outcomes are values (see util/result.hpp), never exceptions.
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

// A bad setting: `what` names the setting and its source, `value` is what was given (already
// redacted by the caller when secret), `expected` says what would be accepted.
inline std::string bad_setting(const std::string& what, const std::string& value, const std::string& expected) {
  return what + ": \"" + value + "\" is not valid (expected " + expected + ")";
}

}  // namespace launcher
