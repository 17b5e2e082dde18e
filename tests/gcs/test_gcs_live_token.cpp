#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "gcs/auth_token.hpp"
#include "util/redact.hpp"

using launcher::gcs::load_auth_token;
using launcher::gcs::TokenPaths;

namespace {

// A projected volume as the kubelet writes it: token -> ..data/token, ..data -> a timestamped
// directory; a rotation writes a new directory and swaps ..data with a rename.
struct ProjectedVolume {
  std::string dir;
  int generation = 0;
  explicit ProjectedVolume(const std::string& first) {
    char name[] = "/tmp/raylaunch-projected-XXXXXX";
    dir = mkdtemp(name);
    rotate(first);
    REQUIRE(symlink("..data/token", (dir + "/token").c_str()) == 0);
  }
  void rotate(const std::string& content) {
    const std::string gen = "..gen" + std::to_string(++generation);
    mkdir((dir + "/" + gen).c_str(), 0755);
    std::ofstream(dir + "/" + gen + "/token") << content;
    const std::string tmp = dir + "/..data_tmp";
    std::remove(tmp.c_str());
    REQUIRE(symlink(gen.c_str(), tmp.c_str()) == 0);
    REQUIRE(std::rename(tmp.c_str(), (dir + "/..data").c_str()) == 0);
  }
  std::string path() const { return dir + "/token"; }
  ~ProjectedVolume() {
    for (int g = 1; g <= generation; ++g) {
      std::remove((dir + "/..gen" + std::to_string(g) + "/token").c_str());
      rmdir((dir + "/..gen" + std::to_string(g)).c_str());
    }
    std::remove((dir + "/..data").c_str());
    std::remove((dir + "/token").c_str());
    rmdir(dir.c_str());
  }
};

}  // namespace

TEST_CASE("a token read from a file follows the file when it rotates") {
  ProjectedVolume volume("first-token\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", volume.path()}}, TokenPaths{"/nonexistent", "/nonexistent"});
  REQUIRE(t.ok());
  REQUIRE(t->live);
  CHECK(t->live->value() == "first-token");
  CHECK(t->live->value() == "first-token");  // unchanged file: not read again
  CHECK(t->live->reloads() == 0);

  // What Kubernetes does to a projected token: the same path, a new file behind it.
  volume.rotate("second-token\n");
  CHECK(t->live->value() == "second-token");
  CHECK(t->live->reloads() == 1);
  CHECK(launcher::util::redact("Bearer second-token") == "Bearer ***");  // a secret like the first

  SECTION("a file that cannot be used for a moment keeps the token last read") {
    volume.rotate("\n");
    CHECK(t->live->value() == "second-token");
    volume.rotate("third-token\n");
    CHECK(t->live->value() == "third-token");
  }
}

TEST_CASE("a token from RAY_AUTH_TOKEN is a value, not a file: it never changes") {
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN", "env-token"}}, TokenPaths{"/nonexistent", "/nonexistent"});
  REQUIRE(t.ok());
  CHECK(t->token->path.empty());
  CHECK(t->live->value() == "env-token");
}

TEST_CASE("a rotating token keeps only its last few values registered as secrets (issue 26)") {
  // Ray's own tokens last 10 minutes and the kubelet renews them at 80 %: a day of a long run
  // is 180 rotations. Each value stays masked while it can still show in a line (the one sent
  // now and the two before it); older ones leave the list every log line is checked against.
  const auto token = [](int i) { return "rotating-token-" + std::to_string(i) + "-of-a-long-run"; };
  ProjectedVolume volume(token(0) + "\n");
  const auto t = load_auth_token({{"RAY_AUTH_TOKEN_PATH", volume.path()}}, TokenPaths{"/nonexistent", "/nonexistent"});
  REQUIRE(t.ok());
  const int rotations = 20;
  for (int i = 1; i <= rotations; ++i) {
    volume.rotate(token(i) + "\n");
    REQUIRE(t->live->value() == token(i));
  }
  for (int i = rotations - static_cast<int>(launcher::gcs::k_kept_tokens) + 1; i <= rotations; ++i) {
    CHECK(launcher::util::redact("Bearer " + token(i)) == "Bearer ***");
  }
  for (int i = 0; i <= rotations - static_cast<int>(launcher::gcs::k_kept_tokens); ++i) {
    CHECK(launcher::util::redact(token(i)) == token(i));  // expired long ago, no longer in the list
  }
}
