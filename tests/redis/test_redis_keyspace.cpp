#include <catch2/catch.hpp>
#include <stdexcept>

#include "redis/keyspace.hpp"

using namespace launcher::redis;

TEST_CASE("glob metacharacters are escaped, everything else is kept", "[keyspace]") {
  CHECK(escape_glob("default") == "default");
  CHECK(escape_glob("a*b?c[d]e\\f") == "a\\*b\\?c\\[d\\]e\\\\f");
  CHECK(escape_glob("a-b^c@d") == "a-b^c@d");  // special only inside [], which is escaped itself
  CHECK(escape_glob("") == "");
}

TEST_CASE("the literal prefix of a pattern ends at its first wildcard", "[keyspace]") {
  CHECK(literal_prefix_length("RAYns@*") == 6);
  CHECK(literal_prefix_length("RAY\\*@*") == 5);
  CHECK(literal_prefix_length("*") == 0);
  CHECK(literal_prefix_length("a?b") == 1);
  CHECK(literal_prefix_length("[ab]") == 0);
  CHECK(literal_prefix_length("abc") == 3);
}

TEST_CASE("the SCAN pattern matches one namespace literally", "[keyspace]") {
  CHECK(table_key_pattern("default") == "RAYdefault@*");
  CHECK(table_key_pattern("a*") == "RAYa\\*@*");
  CHECK(table_key_pattern("*") == "RAY\\*@*");
  CHECK(table_key_pattern("[x]?") == "RAY\\[x\\]\\?@*");
  // Everything up to the '@' is literal: nothing but this namespace's prefix can match.
  for (const std::string ns : {"default", "*", "?", "[", "\\", "a*b?c[d]", "x\\*"}) {
    const std::string p = table_key_pattern(ns);
    INFO(p);
    CHECK(literal_prefix_length(p) == 3 + ns.size() + 1);
  }
}

TEST_CASE("an empty namespace has no pattern: it would match every cluster", "[keyspace][bad-input]") {
  CHECK_THROWS_AS(table_key_pattern(""), std::logic_error);
}

TEST_CASE("only the namespace's own table keys are Ray's keys of it", "[keyspace]") {
  CHECK(is_table_key("ns", "RAYns@NODE"));
  CHECK(is_table_key("ns", "RAYns@ACTOR_TASK_SPEC"));
  CHECK_FALSE(is_table_key("ns", "RAYns@"));           // no table
  CHECK_FALSE(is_table_key("ns", "RAYns2@NODE"));      // a namespace it is a prefix of
  CHECK_FALSE(is_table_key("ns", "RAYns@b@NODE"));     // namespace "ns@b", which MATCH RAYns@* also returns
  CHECK(is_table_key("ns@b", "RAYns@b@NODE"));
  CHECK_FALSE(is_table_key("ns@b", "RAYns@NODE"));
  CHECK_FALSE(is_table_key("ns", "ns@NODE"));          // no RAY prefix
  CHECK_FALSE(is_table_key("", "RAY@NODE"));
  CHECK(is_table_key("a*", "RAYa*@NODE"));
  CHECK_FALSE(is_table_key("a*", "RAYab@NODE"));
}

TEST_CASE("a <= 2.37 field belongs to the namespace it starts with", "[keyspace]") {
  CHECK(is_legacy_field("ns", "ns@NODE:abc"));
  CHECK(is_legacy_field("ns", std::string("ns@NODE:\x00\x01", 10)));
  CHECK_FALSE(is_legacy_field("ns", "ns2@NODE:abc"));
  CHECK_FALSE(is_legacy_field("ns", "user-data"));
  CHECK_FALSE(is_legacy_field("", "@NODE"));
}
