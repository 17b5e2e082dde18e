#include <catch2/catch.hpp>
#include <set>

#include "fixtures.hpp"
#include "config/cli.hpp"
#include "config/settings.hpp"

using namespace launcher;

TEST_CASE("every setting is a flag and an environment variable, both unique", "[settings]") {
  std::set<std::string_view> flags;
  std::set<std::string_view> envs;
  for (const SettingSpec& spec : setting_specs()) {
    INFO(spec.key);
    CHECK((spec.flags.starts_with("--") || (spec.secret && spec.flags.empty())));  // a secret: environment only
    CHECK_FALSE(spec.env.empty());
    CHECK(spec.default_value.empty() != spec.default_note.empty());  // one default, said once
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

TEST_CASE("every fixed default parses as a value of its setting", "[settings]") {
  // parse_config applies the table's defaults through the same parsers; a bad one throws.
  CHECK_NOTHROW(fixtures::config({}));
}

TEST_CASE("two aliases of one setting given together are refused", "[settings][bad-input]") {
  CLI::App app;
  CliValues values;
  add_settings(app, values, {"join_timeout"});
  const char* argv[] = {"raylaunch", "--join-timeout", "5m", "--timeout", "10m"};
  app.parse(5, const_cast<char**>(argv));
  int code = 0;
  const auto lines = fixtures::fatal_lines([&] { resolve_config(values, {}, {"join_timeout"}); }, &code);
  CHECK(code == 64);
  CHECK(lines == std::vector<std::string>{"--join-timeout and --timeout are the same setting (expected only one of them)"});
}
