#pragma once
#include <string>

namespace launcher {

enum class CheckStatus { pass, warn, fail };
const char* to_string(CheckStatus s);

// One node check: what was found, and the fix in one line when it is not a pass.
struct Check {
  std::string name;
  CheckStatus status = CheckStatus::pass;
  std::string detail;
  std::string fix;
};

}  // namespace launcher
