#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "gcs/auth_token.hpp"

using launcher::gcs::load_auth_token;

namespace {

// A temp file removed at scope exit.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/raylaunch-token-XXXXXX";
    const int fd = mkstemp(name);
    close(fd);
    path = name;
    std::ofstream(path) << content;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace

TEST_CASE("no token settings: no token, no metadata") {
  const auto t = load_auth_token({});
  REQUIRE(t.ok());
  CHECK_FALSE(t->has_value());
}

TEST_CASE("RAY_AUTH_TOKEN wins over RAY_AUTH_TOKEN_PATH") {
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN", "s3cret"}, {"RAY_AUTH_TOKEN_PATH", "/nonexistent"}});
  REQUIRE(t.ok());
  REQUIRE(t->has_value());
  CHECK(t.value()->value == "s3cret");
  CHECK(t.value()->source == "RAY_AUTH_TOKEN");
}

TEST_CASE("RAY_AUTH_TOKEN_PATH is read and trimmed") {
  const TempFile f("  tok-from-file\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", f.path}});
  REQUIRE(t.ok());
  REQUIRE(t->has_value());
  CHECK(t.value()->value == "tok-from-file");
  CHECK(t.value()->source == "RAY_AUTH_TOKEN_PATH=" + f.path);
}

TEST_CASE("a missing token file is a clear error that names the path, not a secret") {
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", "/nonexistent/token"}});
  REQUIRE_FALSE(t.ok());
  CHECK(t.error() == "RAY_AUTH_TOKEN_PATH=/nonexistent/token: cannot read the token file: No such file or "
                     "directory (mount the Secret there, or unset RAY_AUTH_TOKEN_PATH)");
}

TEST_CASE("an empty token file is an error; an empty RAY_AUTH_TOKEN counts as unset") {
  const TempFile f("\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN", ""}, {"RAY_AUTH_TOKEN_PATH", f.path}});
  REQUIRE_FALSE(t.ok());
  CHECK(t.error() == "RAY_AUTH_TOKEN_PATH=" + f.path + ": the token is not usable: it is empty (expected Ray's auth token)");
}

TEST_CASE("only the token file's first line is the token, as Ray's loader reads it") {
  const TempFile f("tok-line-one\nsecond line\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", f.path}});
  REQUIRE(t.ok());
  CHECK(t.value()->value == "tok-line-one");
}

TEST_CASE("a token that cannot be an HTTP/2 header value is refused, naming the byte, never the token") {
  const TempFile bom("\xef\xbb\xbf" "tok-with-bom\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", bom.path}});
  REQUIRE_FALSE(t.ok());
  CHECK(t.error() == "RAY_AUTH_TOKEN_PATH=" + bom.path +
                         ": the token is not usable: byte 0 is not printable ASCII (a UTF-8 BOM?) (expected a token of "
                         "letters, digits and punctuation, as Ray generates)");
  CHECK(t.error().find("tok-with-bom") == std::string::npos);
  const auto ctl = load_auth_token({{"RAY_AUTH_TOKEN", "abc\x01" "def"}});
  REQUIRE_FALSE(ctl.ok());
  CHECK(ctl.error().find("abc") == std::string::npos);
  CHECK_FALSE(load_auth_token({{"RAY_AUTH_TOKEN", "two words"}}).ok());
}

TEST_CASE("a huge token file and a directory are refused without being read whole") {
  const TempFile big(std::string(2 * 1024 * 1024, 'a'));
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", big.path}});
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().find("larger than") != std::string::npos);
  const auto dir = load_auth_token({{"RAY_AUTH_TOKEN_PATH", "/tmp"}});
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error() == "RAY_AUTH_TOKEN_PATH=/tmp: cannot read the token file: is a directory (mount the Secret there, "
                       "or unset RAY_AUTH_TOKEN_PATH)");
}
