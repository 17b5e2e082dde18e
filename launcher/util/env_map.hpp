#pragma once
#include <map>
#include <string>

namespace launcher::util {

// An environment as name → value. Planning reads it as a value; only process_env() reads
// `environ`, so tests hand in any environment they like.
using EnvMap = std::map<std::string, std::string>;

// The process environment, once, at the start of a command.
EnvMap process_env();

// The value of `name`, or "" when unset (an empty variable counts as unset everywhere).
std::string env_value(const EnvMap& env, const std::string& name);

}  // namespace launcher::util
