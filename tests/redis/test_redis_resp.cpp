#include <catch2/catch.hpp>
#include <string>

#include "redis/resp.hpp"

using namespace launcher::redis;

namespace {

// Feeds `bytes` and returns every complete reply, failing the test on a protocol error.
std::vector<Reply> decode(ReplyReader& reader, const std::string& bytes) {
  REQUIRE(reader.feed(bytes.data(), bytes.size()).empty());
  std::vector<Reply> out;
  for (;;) {
    auto next = reader.next();
    REQUIRE(next.ok());
    if (!next.value()) {
      return out;
    }
    out.push_back(*next.value());
  }
}

std::string error_of(const std::string& bytes) {
  ReplyReader reader;
  if (std::string e = reader.feed(bytes.data(), bytes.size()); !e.empty()) {
    return e;
  }
  auto next = reader.next();
  return next.ok() ? std::string("(no error)") : next.error();
}

}  // namespace

TEST_CASE("a command is an array of binary-safe bulk strings", "[resp]") {
  std::string out;
  append_command(out, {"AUTH", "ray", "pass word\r\n*"});
  CHECK(out == "*3\r\n$4\r\nAUTH\r\n$3\r\nray\r\n$12\r\npass word\r\n*\r\n");
  append_command(out, {"PING"});
  CHECK(out.ends_with("*1\r\n$4\r\nPING\r\n"));
}

TEST_CASE("every reply type is decoded", "[resp]") {
  ReplyReader reader;
  const auto r = decode(reader, "+PONG\r\n-WRONGPASS bad\r\n:42\r\n$3\r\nabc\r\n$-1\r\n*-1\r\n*0\r\n");
  REQUIRE(r.size() == 7);
  CHECK(r[0].is_status("PONG"));
  CHECK((r[1].is_error() && r[1].text == "WRONGPASS bad"));
  CHECK((r[2].type == Reply::Type::integer && r[2].integer == 42));
  CHECK((r[3].type == Reply::Type::string && r[3].text == "abc"));
  CHECK(r[4].type == Reply::Type::nil);
  CHECK(r[5].type == Reply::Type::nil);
  CHECK((r[6].type == Reply::Type::array && r[6].elements.empty()));
}

TEST_CASE("a SCAN reply nests an array of keys, binary bytes kept", "[resp]") {
  ReplyReader reader;
  const auto r = decode(reader, std::string("*2\r\n$4\r\n1234\r\n*3\r\n$5\r\nRAY@a\r\n$0\r\n\r\n$3\r\na\0b\r\n", 44));
  REQUIRE(r.size() == 1);
  REQUIRE(r[0].elements.size() == 2);
  CHECK(r[0].elements[0].text == "1234");
  REQUIRE(r[0].elements[1].elements.size() == 3);
  CHECK(r[0].elements[1].elements[0].text == "RAY@a");
  CHECK(r[0].elements[1].elements[1].text.empty());
  CHECK(r[0].elements[1].elements[2].text == std::string("a\0b", 3));
}

TEST_CASE("a reply split across reads is returned once complete", "[resp]") {
  ReplyReader reader;
  const std::string bytes = "*2\r\n$1\r\n0\r\n*1\r\n$10\r\nRAYns@NODE\r\n:7\r\n";
  std::vector<Reply> all;
  for (char c : bytes) {
    const auto got = decode(reader, std::string(1, c));
    all.insert(all.end(), got.begin(), got.end());
  }
  REQUIRE(all.size() == 2);
  CHECK(all[0].elements[1].elements[0].text == "RAYns@NODE");
  CHECK(all[1].integer == 7);
}

TEST_CASE("bytes that are not RESP are a protocol error, not a reply", "[resp][bad-input]") {
  CHECK(error_of("HTTP/1.1 400 Bad Request\r\n\r\n") == "protocol error: got \"H\" as reply type byte");
  CHECK(error_of(std::string("\x15\x03\x01\x00\x02\x02\x50", 7)).starts_with("protocol error: got"));
  CHECK(error_of(":12x\r\n") == "protocol error: Bad integer value");
  CHECK(error_of("*99999999999\r\n").starts_with("protocol error: Multi-bulk length out of range"));
}

TEST_CASE("a lying length costs nothing until its bytes arrive, and is bounded", "[resp][bad-input]") {
  SECTION("an array that claims two billion elements waits for them") {
    ReplyReader reader;
    CHECK(reader.feed("*2147483647\r\n", 13).empty());
    auto next = reader.next();
    REQUIRE(next.ok());
    CHECK_FALSE(next.value().has_value());
  }
  SECTION("an endless bulk string stops at the reply size limit") {
    ReplyReader reader;
    const std::string chunk(1 << 20, 'x');
    std::string err = reader.feed("$999999999999\r\n", 15);
    for (int i = 0; i < 9 && err.empty(); ++i) {
      err = reader.feed(chunk.data(), chunk.size());
    }
    CHECK(err.starts_with("a reply longer than 8 MiB"));
  }
  SECTION("too many values in one reply") {
    std::string bytes = "*200000\r\n";
    for (int i = 0; i < 200000; ++i) {
      bytes += ":1\r\n";
    }
    CHECK(error_of(bytes).starts_with("protocol error: a reply of more than 131072 values"));
  }
}

TEST_CASE("the size limit counts one reply, not the connection's life", "[resp]") {
  ReplyReader reader;
  const std::string value(1 << 20, 'v');
  const std::string one = "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
  for (int i = 0; i < 20; ++i) {  // 20 MiB in all, 1 MiB each
    REQUIRE(decode(reader, one).size() == 1);
  }
}
