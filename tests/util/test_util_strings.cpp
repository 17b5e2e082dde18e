#include <catch2/catch.hpp>

#include "util/strings.hpp"

using namespace launcher::util;

TEST_CASE("printable escapes control bytes and bad UTF-8, keeps valid UTF-8", "[util]") {
  CHECK(printable("plain text") == "plain text");
  CHECK(printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(printable("\x1b[31mred") == "\\e[31mred");
  CHECK(printable("back\\slash") == "back\\slash");  // printable already: escaping twice changes nothing
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");          // é stays
  CHECK(printable("\xef\xbb\xbftoken") == "\xef\xbb\xbftoken");  // a BOM is valid UTF-8 (U+FEFF)
  CHECK(printable("bad\xff\xc3") == "bad\\xff\\xc3");
  CHECK(printable(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(printable("abcdef", 3) == "abc…");
  CHECK(printable("abc", 3) == "abc");
}

TEST_CASE("UTF-8 validity", "[util]") {
  CHECK(is_printable_text("caf\xc3\xa9"));
  CHECK_FALSE(is_printable_text("\xc0\xaf"));        // overlong
  CHECK_FALSE(is_printable_text("\xed\xa0\x80"));    // surrogate
  CHECK_FALSE(is_printable_text("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST_CASE("join", "[util]") {
  CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(join({}, ", ").empty());
}

TEST_CASE("printable escapes what reorders or hides text on a terminal, once", "[util]") {
  CHECK(printable("\xc2\x9b" "31m") == "\\u009b31m");                        // C1 CSI
  CHECK(printable("user\xe2\x80\xaegnp.exe") == "user\\u202egnp.exe");    // RIGHT-TO-LEFT OVERRIDE
  CHECK(printable("a\xe2\x81\xa6" "b") == "a\\u2066b");                       // LEFT-TO-RIGHT ISOLATE
  CHECK(printable("\xe2\x80\xa8") == "\\u2028");                           // LINE SEPARATOR
  for (const char* raw : {"bad\xff", "nul\x01", "\xe2\x80\xae", "tab\there", "back\\slash"}) {
    INFO(raw);
    CHECK(printable(printable(raw)) == printable(raw));  // one escape, never "\\\\xff"
  }
}

TEST_CASE("is_printable_text: any length, backslashes fine, no control characters", "[util]") {
  CHECK(is_printable_text(std::string(4000, 'x')));
  CHECK(is_printable_text("--labels={\"a\":\"b\\\\c\"}"));
  CHECK(is_printable_text("caf\xc3\xa9"));
  CHECK_FALSE(is_printable_text("a\nb"));
  CHECK_FALSE(is_printable_text("bad\xff"));
  CHECK_FALSE(is_printable_text("\xe2\x80\xae"));
  CHECK_FALSE(is_printable_text("\xc2\x85"));
}

TEST_CASE("cut_utf8 never ends inside a character", "[util]") {
  CHECK(cut_utf8("abc", 5) == "abc");
  CHECK(cut_utf8("abc", 2) == "ab");
  CHECK(cut_utf8("a\xc3\xa9", 2) == "a");           // é is 2 bytes
  CHECK(cut_utf8("a\xe2\x82\xac", 3) == "a");       // € is 3
  CHECK(cut_utf8("a\xe2\x82\xac", 4) == "a\xe2\x82\xac");
}
