#include <catch2/catch.hpp>

#include "gcs/gcs_client.hpp"

using namespace launcher::gcs;

TEST_CASE("Ray versions as GCSes report them") {
  CHECK(parse_ray_version("2.9.0")->minor == 9);
  CHECK(parse_ray_version("2.40.0")->at_least(2, 36));
  CHECK(parse_ray_version("3.0.0.dev0")->major == 3);  // master
  CHECK(parse_ray_version("2.49")->at_least(2, 49));
  CHECK_FALSE(parse_ray_version("").has_value());
  CHECK_FALSE(parse_ray_version("2").has_value());
  CHECK_FALSE(parse_ray_version("v2.9.0").has_value());
  CHECK_FALSE(parse_ray_version("2.x").has_value());
}

TEST_CASE("each version gets the one request layout it filters on") {
  CHECK(node_filter_for(std::nullopt) == NodeFilter::none);
  CHECK(node_filter_for(parse_ray_version("2.9.0")) == NodeFilter::none);
  CHECK(node_filter_for(parse_ray_version("2.35.0")) == NodeFilter::none);
  CHECK(node_filter_for(parse_ray_version("2.36.0")) == NodeFilter::filters_v236);
  CHECK(node_filter_for(parse_ray_version("2.48.0")) == NodeFilter::filters_v236);
  CHECK(node_filter_for(parse_ray_version("2.49.0")) == NodeFilter::node_selectors);
  CHECK(node_filter_for(parse_ray_version("2.57.1")) == NodeFilter::node_selectors);
  CHECK(node_filter_for(parse_ray_version("3.0.0.dev0")) == NodeFilter::node_selectors);
  CHECK(node_filter_for(parse_ray_version("1.13.0")) == NodeFilter::none);
}
