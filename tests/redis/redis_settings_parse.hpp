// The Redis settings tests' parse of `redis-cleanup`'s settings, and the 64 it throws on bad ones.
#pragma once
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "util/fatal.hpp"

namespace launcher::redis_test {

inline Config parse(const EnvMap& env, const std::map<std::string, std::string>& flags = {}) {
  return parse_config(RawSettings(flags, env), Command::redis_cleanup);
}

// The lines of the Fatal(64) that parsing `env` throws (fails the test if none is thrown).
inline std::vector<std::string> problems(const EnvMap& env) {
  try {
    parse(env);
  } catch (const Fatal& e) {
    CHECK(e.code() == 64);
    return e.lines();
  }
  FAIL("no error for a bad setting");
  return {};
}

}  // namespace launcher::redis_test
