#pragma once
#include <string>

namespace launcher {

enum class Origin { raylaunch, user };
const char* to_string(Origin o);

// One variable of the environment `ray start` and the launch command inherit.
struct EnvVar {
  std::string name;
  std::string value;
  Origin origin = Origin::raylaunch;  // user: already set by the user, kept as it is
  std::string reason;
};

}  // namespace launcher
