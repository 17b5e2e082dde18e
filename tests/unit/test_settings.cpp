#include <catch2/catch.hpp>
#include <set>

#include "fixtures.hpp"
#include "settings.hpp"

using namespace launcher;

TEST_CASE("every setting is a flag and an environment variable, both unique", "[settings]") {
  std::set<std::string_view> flags;
  std::set<std::string_view> envs;
  for (const SettingSpec& spec : setting_specs()) {
    INFO(spec.key);
    CHECK(spec.flags.starts_with("--"));
    CHECK_FALSE(spec.env.empty());
    CHECK_FALSE(spec.default_text.empty());
    CHECK(flags.insert(spec.flags).second);
    CHECK(envs.insert(spec.env).second);
  }
}

TEST_CASE("a flag wins over its environment variable, and says so", "[settings]") {
  const RawSettings raw({{"nodes", "8"}}, {{"RAYLAUNCH_NODES", "4"}, {"RAYLAUNCH_CHECKS", "warn"}});
  CHECK(raw.get("nodes")->text == "8");
  CHECK(raw.get("nodes")->source == "--nodes");
  CHECK(raw.get("checks")->text == "warn");
  CHECK(raw.get("checks")->source == "RAYLAUNCH_CHECKS");
  CHECK_FALSE(raw.get("ordinal").has_value());
}

TEST_CASE("an empty environment variable counts as unset", "[settings]") {
  const RawSettings raw({}, {{"RAYLAUNCH_NODES", ""}});
  CHECK_FALSE(raw.get("nodes").has_value());
  CHECK(fixtures::config({}, {{"RAYLAUNCH_NODES", ""}}).nodes == 1);
}

TEST_CASE("the timeout flag is an alias of the join-timeout flag", "[settings]") {
  CHECK(setting_spec("join_timeout").flags == "--join-timeout,--timeout");
}
