#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "gcs/auth_token.hpp"

using launcher::gcs::AuthMode;
using launcher::gcs::load_auth_token;
using launcher::gcs::TokenPaths;

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

// A fake $HOME with .ray/auth_token holding `content` (none when empty).
struct TempHome {
  std::string path;
  explicit TempHome(const std::string& content) {
    char name[] = "/tmp/raylaunch-home-XXXXXX";
    path = mkdtemp(name);
    if (!content.empty()) {
      mkdir((path + "/.ray").c_str(), 0700);
      std::ofstream(path + "/.ray/auth_token") << content;
    }
  }
  ~TempHome() {
    std::remove((path + "/.ray/auth_token").c_str());
    rmdir((path + "/.ray").c_str());
    rmdir(path.c_str());
  }
};

const TokenPaths k_no_k8s{"/nonexistent/ray.io/serviceaccount/token", "/nonexistent/serviceaccount/token"};

}  // namespace

TEST_CASE("no token anywhere: no token, no metadata, no error") {
  const TempHome home("");
  const auto t = load_auth_token({{"HOME", home.path}}, k_no_k8s);
  REQUIRE(t.ok());
  CHECK_FALSE(t->token.has_value());
  CHECK(t->unusable.empty());
  CHECK(t->mode == AuthMode::unset);
}

TEST_CASE("RAY_AUTH_TOKEN wins over RAY_AUTH_TOKEN_PATH, which is then not read at all") {
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN", "s3cret"}, {"RAY_AUTH_TOKEN_PATH", "/nonexistent"}}, k_no_k8s);
  REQUIRE(t.ok());
  REQUIRE(t->token.has_value());
  CHECK(t->token->value == "s3cret");
  CHECK(t->token->source == "RAY_AUTH_TOKEN");
  CHECK(t->unusable.empty());
}

TEST_CASE("RAY_AUTH_TOKEN_PATH: the first line, trimmed, as Ray's loader reads it") {
  const TempFile f("  tok-line-one\t\nsecond line\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", f.path}}, k_no_k8s);
  REQUIRE(t.ok());
  REQUIRE(t->token.has_value());
  CHECK(t->token->value == "tok-line-one");
  CHECK(t->token->source == "RAY_AUTH_TOKEN_PATH=" + f.path);
}

TEST_CASE("an unreadable RAY_AUTH_TOKEN_PATH fails only when RAY_AUTH_MODE=token needs it") {
  const TempHome home("tok-from-home\n");
  SECTION("auth mode unset: no failure, no fall-through to ~/.ray/auth_token, the reason kept for later") {
    const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", "/nonexistent/token"}, {"HOME", home.path}}, k_no_k8s);
    REQUIRE(t.ok());
    CHECK_FALSE(t->token.has_value());
    CHECK(t->unusable ==
          "RAY_AUTH_TOKEN_PATH=/nonexistent/token: cannot read the token file: No such file or "
          "directory (mount the Secret there, or unset RAY_AUTH_TOKEN_PATH)");
  }
  SECTION("RAY_AUTH_MODE=token: one clear error naming the path") {
    const auto t = load_auth_token(
        {{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN_PATH", "/nonexistent/token"}, {"HOME", home.path}}, k_no_k8s);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error() ==
          "RAY_AUTH_TOKEN_PATH=/nonexistent/token: cannot read the token file: No such file or "
          "directory (mount the Secret there, or unset RAY_AUTH_TOKEN_PATH)");
  }
  SECTION("RAY_AUTH_MODE=disabled: nothing is read, nothing sent") {
    const auto t = load_auth_token({{"RAY_AUTH_MODE", "disabled"}, {"RAY_AUTH_TOKEN", "s3cret"}}, k_no_k8s);
    REQUIRE(t.ok());
    CHECK(t->mode == AuthMode::disabled);
    CHECK_FALSE(t->token.has_value());
  }
}

TEST_CASE("~/.ray/auth_token is the last source, RAY_AUTH_MODE=token without any token is an error") {
  const TempHome home("tok-from-home\n");
  const auto t = load_auth_token({{"HOME", home.path}, {"RAY_AUTH_MODE", "TOKEN"}}, k_no_k8s);
  REQUIRE(t.ok());
  CHECK(t->mode == AuthMode::token);
  REQUIRE(t->token.has_value());
  CHECK(t->token->value == "tok-from-home");
  CHECK(t->token->source == "~/.ray/auth_token (" + home.path + "/.ray/auth_token)");
  const TempHome empty("");
  const auto none = load_auth_token({{"HOME", empty.path}, {"RAY_AUTH_MODE", "token"}}, k_no_k8s);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error() ==
        "RAY_AUTH_MODE=token but no token was found (set RAY_AUTH_TOKEN, or RAY_AUTH_TOKEN_PATH to a "
        "file holding it, or create ~/.ray/auth_token)");
}

TEST_CASE("Kubernetes token mode (Ray 2.55+) reads Ray's projected token, not the API server's") {
  const TempFile ray_sa("eyJhbGciOiJSUzI1NiJ9.ray-audience.sig\n");
  const TempFile api_sa("eyJhbGciOiJSUzI1NiJ9.api-server-audience.sig\n");
  const TempHome home("tok-from-home\n");
  const TokenPaths paths{ray_sa.path, api_sa.path};
  for (const char* on : {"1", "true", "True"}) {
    const auto t = load_auth_token({{"RAY_ENABLE_K8S_TOKEN_AUTH", on}, {"HOME", home.path}}, paths);
    REQUIRE(t.ok());
    REQUIRE(t->token.has_value());
    CHECK(t->token->value == "eyJhbGciOiJSUzI1NiJ9.ray-audience.sig");
    CHECK(t->token->source == "the Ray service-account token " + ray_sa.path);
    CHECK(t->token->path == ray_sa.path);  // followed across rotations
  }
  SECTION("the default paths are Ray's (k8s_constants.h)") {
    CHECK(TokenPaths{}.ray_service_account == "/var/run/secrets/ray.io/serviceaccount/token");
    CHECK(TokenPaths{}.k8s_service_account == "/var/run/secrets/kubernetes.io/serviceaccount/token");
  }
  SECTION("no Ray token mounted: ~/.ray/auth_token next; the API server's token is never sent") {
    const TokenPaths only_api{"/nonexistent/ray.io/token", api_sa.path};
    const auto t = load_auth_token({{"RAY_ENABLE_K8S_TOKEN_AUTH", "1"}, {"HOME", home.path}}, only_api);
    REQUIRE(t.ok());
    CHECK(t->token->value == "tok-from-home");
  }
  SECTION("off (RayConfig reads only 1 and true as on): the service account is not looked at") {
    const auto t = load_auth_token({{"RAY_ENABLE_K8S_TOKEN_AUTH", "yes"}, {"HOME", home.path}}, paths);
    REQUIRE(t.ok());
    CHECK(t->token->value == "tok-from-home");
  }
  SECTION("on, but no service-account token mounted: ~/.ray/auth_token, as Ray falls through") {
    const auto t = load_auth_token({{"RAY_ENABLE_K8S_TOKEN_AUTH", "1"}, {"HOME", home.path}}, k_no_k8s);
    REQUIRE(t.ok());
    CHECK(t->token->value == "tok-from-home");
  }
}

TEST_CASE("RAY_AUTH_MODE=k8s (Ray 2.52-2.53) requires a token and reads the service-account token") {
  const TempFile ray_sa("ray-audience\n");
  const TempFile api_sa("  api-server-audience  \n");
  const TempHome home("tok-from-home\n");
  const auto t = load_auth_token({{"RAY_AUTH_MODE", "K8S"}, {"HOME", home.path}}, TokenPaths{ray_sa.path, api_sa.path});
  REQUIRE(t.ok());
  CHECK(t->mode == AuthMode::token);
  CHECK(t->token->value == "api-server-audience");
  CHECK(t->token->source == "the service-account token " + api_sa.path);
  const TempHome empty("");
  const auto none = load_auth_token({{"RAY_AUTH_MODE", "k8s"}, {"HOME", empty.path}}, k_no_k8s);
  CHECK_FALSE(none.ok());
}

TEST_CASE("RAY_AUTH_TOKEN of only whitespace is taken, as Ray takes it, and is no token") {
  const TempFile f("tok-from-file\n");
  const TempHome home("tok-from-home\n");
  SECTION("RAY_AUTH_MODE=token: an error naming the source, no fall-through to the next ones") {
    const auto t = load_auth_token(
        {{"RAY_AUTH_TOKEN", " \t "}, {"RAY_AUTH_TOKEN_PATH", f.path}, {"HOME", home.path}, {"RAY_AUTH_MODE", "token"}},
        k_no_k8s);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().starts_with("RAY_AUTH_TOKEN: the token is not usable: it holds only whitespace"));
  }
  SECTION("mode unset: nothing sent, and why is kept for an UNAUTHENTICATED answer") {
    const auto t = load_auth_token({{"RAY_AUTH_TOKEN", "   "}, {"HOME", home.path}}, k_no_k8s);
    REQUIRE(t.ok());
    CHECK_FALSE(t->token.has_value());
    CHECK_FALSE(t->live);
    CHECK(t->unusable.find("holds only whitespace") != std::string::npos);
  }
}

TEST_CASE("an empty token file is an error, an empty RAY_AUTH_TOKEN counts as unset") {
  const TempFile f("\n");
  const auto t =
      load_auth_token({{"RAY_AUTH_TOKEN", ""}, {"RAY_AUTH_TOKEN_PATH", f.path}, {"RAY_AUTH_MODE", "token"}}, k_no_k8s);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error() ==
        "RAY_AUTH_TOKEN_PATH=" + f.path + ": the token is not usable: it is empty (expected Ray's auth token)");
}

TEST_CASE("a token that cannot be an HTTP/2 header value is refused, naming the byte, never the token") {
  const TempFile bom(
      "\xef\xbb\xbf"
      "tok-with-bom\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", bom.path}, {"RAY_AUTH_MODE", "token"}}, k_no_k8s);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error() == "RAY_AUTH_TOKEN_PATH=" + bom.path +
                         ": the token is not usable: byte 0 is not printable ASCII (a UTF-8 BOM?) (expected a token of "
                         "letters, digits and punctuation, as Ray generates)");
  CHECK(t.error().find("tok-with-bom") == std::string::npos);
  // With the mode unset, the bad token is never sent (gRPC would abort on it), and not an error yet.
  const auto unset = load_auth_token({{"RAY_AUTH_TOKEN",
                                       "abc\x01"
                                       "def"}},
                                     k_no_k8s);
  REQUIRE(unset.ok());
  CHECK_FALSE(unset->token.has_value());
  CHECK(unset->unusable.find("byte 3 is not printable ASCII") != std::string::npos);
  CHECK(unset->unusable.find("abc") == std::string::npos);
  CHECK_FALSE(load_auth_token({{"RAY_AUTH_TOKEN", "two words"}, {"RAY_AUTH_MODE", "token"}}, k_no_k8s).ok());
}

TEST_CASE("a huge token file and a directory are refused without being read whole") {
  const TempFile big(std::string(2 * 1024 * 1024, 'a'));
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", big.path}, {"RAY_AUTH_MODE", "token"}}, k_no_k8s);
  REQUIRE_FALSE(t.ok());
  // Only its first 64 KiB + 2 bytes are read: a first line that long is no token.
  CHECK(t.error().find("it is longer than 65536 bytes") != std::string::npos);
  const auto dir = load_auth_token({{"RAY_AUTH_TOKEN_PATH", "/tmp"}, {"RAY_AUTH_MODE", "token"}}, k_no_k8s);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error() ==
        "RAY_AUTH_TOKEN_PATH=/tmp: cannot read the token file: is a directory (mount the Secret there, "
        "or unset RAY_AUTH_TOKEN_PATH)");
}
