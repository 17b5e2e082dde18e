#include <catch2/catch.hpp>

#include "util/strings.hpp"

using namespace launcher::util;

TEST_CASE("printable escapes control bytes and bad UTF-8, keeps valid UTF-8", "[util]") {
  CHECK(printable("plain text") == "plain text");
  CHECK(printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(printable("\x1b[31mred") == "\\e[31mred");
  CHECK(printable("back\\slash") == "back\\\\slash");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");          // é stays
  CHECK(printable("\xef\xbb\xbftoken") == "\xef\xbb\xbftoken");  // a BOM is valid UTF-8 (U+FEFF)
  CHECK(printable("bad\xff\xc3") == "bad\\xff\\xc3");
  CHECK(printable(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(printable("abcdef", 3) == "abc…");
}

TEST_CASE("UTF-8 validity", "[util]") {
  CHECK(is_valid_utf8("caf\xc3\xa9"));
  CHECK_FALSE(is_valid_utf8("\xc0\xaf"));        // overlong
  CHECK_FALSE(is_valid_utf8("\xed\xa0\x80"));    // surrogate
  CHECK_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST_CASE("join", "[util]") {
  CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(join({}, ", ").empty());
}
