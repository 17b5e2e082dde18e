#include <catch2/catch.hpp>

#include "plan/ray_install.hpp"

using launcher::parse_ray_metadata;

TEST_CASE("the installed Ray's version from its package metadata", "[ray-install]") {
  const auto r = parse_ray_metadata("Metadata-Version: 2.1\nName: ray\nVersion: 2.40.0\nSummary: x\n\nVersion: 1.0\n", "M");
  REQUIRE(r);
  CHECK(r->version == "2.40.0");
  CHECK(r->metadata == "M");
  CHECK(r->at_least(2, 40));
  CHECK_FALSE(r->at_least(2, 41));
  CHECK(parse_ray_metadata("Version: 3.0.0rc1\r\n", "M")->at_least(2, 41));
  // Only the headers count: a "Version:" in the description after the blank line does not.
  CHECK_FALSE(parse_ray_metadata("Name: ray\n\nVersion: 2.60.0\n", "M"));
  CHECK_FALSE(parse_ray_metadata("Version: two\n", "M"));
  CHECK_FALSE(parse_ray_metadata("", "M"));
}
