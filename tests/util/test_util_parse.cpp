#include <catch2/catch.hpp>

#include <fstream>

#include "util/parse.hpp"

using namespace launcher::util;
using std::chrono::milliseconds;

TEST_CASE("durations accept plain seconds and units", "[parse]") {
  CHECK(*parse_duration("300") == milliseconds(300'000));
  CHECK(*parse_duration("300s") == milliseconds(300'000));
  CHECK(*parse_duration("5m") == milliseconds(300'000));
  CHECK(*parse_duration("1h") == milliseconds(3'600'000));
  CHECK(*parse_duration("1500ms") == milliseconds(1500));
  CHECK(*parse_duration("1m30s") == milliseconds(90'000));
}

TEST_CASE("malformed durations are refused with what is expected", "[parse]") {
  for (const char* bad : {"", "0", "-5", "5x", "m", "5 m", "1.5s", "5m3", "s5"}) {
    INFO(bad);
    const auto r = parse_duration(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == "a positive duration such as 300, 300s, 5m, 1h, 1m30s or 1500ms, at most 168h");
  }
}

TEST_CASE("sizes accept bytes, Kubernetes binary and SI suffixes", "[parse]") {
  CHECK(*parse_size("1073741824") == 1ULL << 30);
  CHECK(*parse_size("64Gi") == 64ULL << 30);
  CHECK(*parse_size("512Mi") == 512ULL << 20);
  CHECK(*parse_size("1Ti") == 1ULL << 40);
  CHECK(*parse_size("60G") == 60'000'000'000ULL);
  CHECK(*parse_size("500M") == 500'000'000ULL);
  for (const char* bad : {"", "Gi", "64GB", "64gi", "-1Gi", "1.5Gi", "99999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(parse_size(bad).ok());
  }
}

TEST_CASE("integers are whole, in range, with nothing around them", "[parse]") {
  CHECK(*parse_int("4", 1, 10) == 4);
  for (const char* bad : {"", "abc", "4x", " 4", "0", "11", "-3", "4.0"}) {
    INFO(bad);
    CHECK_FALSE(parse_int(bad, 1, 10).ok());
  }
}

TEST_CASE("sizes and durations print in the shortest exact form", "[parse]") {
  CHECK(format_size(64ULL << 30) == "64Gi");
  CHECK(format_size(1536ULL << 20) == "1.5Gi");
  CHECK(format_size(100) == "100");
  CHECK(format_duration(milliseconds(300'000)) == "5m");
  CHECK(format_duration(milliseconds(1500)) == "1500ms");
}

TEST_CASE("words split on whitespace without any quoting", "[parse]") {
  CHECK(split_words("  --num-cpus=8 \t--resources='{\"a\": 1}' ") ==
        std::vector<std::string>{"--num-cpus=8", "--resources='{\"a\":", "1}'"});
}

TEST_CASE("search lists keep their empty items, which mean something", "[parse]") {
  using V = std::vector<std::string>;
  CHECK(split_list("/a::/b:", ":") == V{"/a", "", "/b", ""});  // PATH: empty is the current directory
  CHECK(split_list("", ":") == V{""});
  CHECK(split_list("/a;/b:/c", ":;") == V{"/a", "/b", "/c"});  // LD_LIBRARY_PATH takes both
  CHECK(split_list("$ORIGIN/../lib", ":") == V{"$ORIGIN/../lib"});
}

TEST_CASE("durations: the vectors shared with the manifest validator (tests/data/durations.tsv)", "[parse]") {
  // One grammar for raylaunch and scripts/manifest_check/durations.py: both run these cases.
  std::ifstream in(RAYLAUNCH_TESTS_DIR "/data/durations.tsv");
  REQUIRE(in.good());
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    const std::string text = line.substr(0, tab);
    const std::string want = line.substr(tab + 1);
    INFO("duration text \"" << text << "\"");
    const auto got = parse_duration(text);
    if (want == "error") {
      CHECK_FALSE(got.ok());
    } else {
      REQUIRE(got.ok());
      CHECK(got->count() == std::stoll(want));
    }
    ++cases;
  }
  CHECK(cases > 30);
}
