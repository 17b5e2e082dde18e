#include <catch2/catch.hpp>
#include <set>

#include "fixtures.hpp"
#include "config/cli.hpp"
#include "config/settings.hpp"

using namespace launcher;

TEST_CASE("every setting is a flag and an environment variable, both unique", "[settings]") {
  std::set<std::string_view> names;
  std::set<std::string_view> flags;
  std::set<std::string_view> envs;
  for (const Setting& setting : settings()) {
    INFO(setting.name);
    CHECK((setting.flags.starts_with("--") || (setting.secret() && setting.flags.empty())));  // a secret: env only
    CHECK_FALSE(setting.env.empty());
    CHECK(setting.default_value.empty() != setting.default_note.empty());  // one default, said once
    CHECK_FALSE(setting.help.empty());
    CHECK_FALSE(setting.commands.empty());  // a setting no command reads is dead
    CHECK(names.insert(setting.name).second);
    CHECK(flags.insert(setting.flags).second);
    CHECK(envs.insert(setting.env).second);
  }
}

TEST_CASE("every setting fills its own Config field, found by that field", "[settings]") {
  std::set<const void*> fields;
  for (const Setting& setting : settings()) {
    INFO(setting.name);
    const void* field = setting.field.address(reference_config());
    CHECK(fields.insert(field).second);
    CHECK(&setting_at(field) == &setting);
  }
  CHECK(setting_of(&Config::gpus).env == "RAYLAUNCH_GPUS");
  CHECK(setting_of(&Config::head_host).canonical_flag() == "--head-address");
  CHECK(setting_of(&Config::redis_tls, &RedisTlsSettings::ca_cert).env == "RAY_REDIS_CA_CERT");
  CHECK_THROWS_AS(setting_of(&Config::head_port), std::logic_error);  // derived from --head-address
}

TEST_CASE("a setting's parser fills the field it names", "[settings]") {
  // Parsed through the table row found by the field: a row bound to the wrong field fails here.
  const Config c = fixtures::config({{"gpus", "3"}, {"efa", "2"}, {"ray_port", "7000"}, {"restarts", "4"},
                                     {"redis_ca_path", "/etc/ca"}, {"namespace", "ml"}});
  CHECK(c.gpus == 3);
  CHECK(c.efa == 2);
  CHECK(c.ray_port == 7000);
  CHECK(c.restarts == 4);
  CHECK(c.redis_tls.ca_path == "/etc/ca");
  CHECK(c.namespace_name == "ml");
  CHECK(c.source_of(&Config::namespace_name) == "--namespace");
  CHECK(c.source_of(&Config::redis_tls, &RedisTlsSettings::ca_path) == "--redis-ca-path");
}

TEST_CASE("a flag wins over its environment variable, and says so", "[settings]") {
  const RawSettings raw({{"nodes", "8"}}, {{"RAYLAUNCH_NODES", "4"}, {"RAYLAUNCH_CHECKS", "warn"}});
  CHECK(raw.get(setting_of(&Config::nodes))->text == "8");
  CHECK(raw.get(setting_of(&Config::nodes))->source == "--nodes");
  CHECK(raw.get(setting_of(&Config::checks))->text == "warn");
  CHECK(raw.get(setting_of(&Config::checks))->source == "RAYLAUNCH_CHECKS");
  CHECK_FALSE(raw.get(setting_of(&Config::ordinal)).has_value());
}

TEST_CASE("an empty environment variable counts as unset", "[settings]") {
  const RawSettings raw({}, {{"RAYLAUNCH_NODES", ""}});
  CHECK_FALSE(raw.get(setting_of(&Config::nodes)).has_value());
  CHECK(fixtures::config({}, {{"RAYLAUNCH_NODES", ""}}).nodes == 1);
}

TEST_CASE("the timeout flag is an alias of the join-timeout flag", "[settings]") {
  CHECK(setting_of(&Config::join_timeout).flags == "--join-timeout,--timeout");
}

TEST_CASE("every fixed default parses as a value of its setting", "[settings]") {
  // parse_config applies the table's defaults through the same parsers; a bad one throws.
  CHECK_NOTHROW(fixtures::config({}));
}

TEST_CASE("each command reads the settings whose rows name it", "[settings]") {
  const auto names = [](Commands readers) {
    std::vector<std::string_view> out;
    for (const Setting* s : settings_of(readers)) {
      out.push_back(s->name);
    }
    return out;
  };
  CHECK(names(Command::probe) ==
        std::vector<std::string_view>{"nodes", "ordinal", "hostname", "namespace", "service", "cluster_domain",
                                      "head_address", "ray_port", "node_manager_port", "probe_timeout", "use_tls",
                                      "tls_server_cert", "tls_server_key", "tls_ca_cert", "log_format",
                                      "log_level"});
  CHECK(names(Command::redis_cleanup) ==
        std::vector<std::string_view>{"join_timeout", "redis_address", "redis_username", "redis_password",
                                      "storage_namespace", "redis_ca_cert", "redis_ca_path", "redis_client_cert",
                                      "redis_client_key", "redis_server_name", "dry_run", "log_format",
                                      "log_level"});
  CHECK(names(Command::run) == names(Command::plan));  // plan validates what run would
  CHECK(names(Commands()).empty());                    // version reads none
}

TEST_CASE("two aliases of one setting given together are refused", "[settings][bad-input]") {
  CLI::App app;
  CliValues values;
  add_settings(app, values, Command::wait);
  const char* argv[] = {"raylaunch", "--join-timeout", "5m", "--timeout", "10m"};
  app.parse(5, const_cast<char**>(argv));
  int code = 0;
  const auto lines = fixtures::fatal_lines([&] { resolve_config(values, {}, Command::wait); }, &code);
  CHECK(code == 64);
  CHECK(lines == std::vector<std::string>{"--join-timeout and --timeout are the same setting (expected only one of them)"});
}
