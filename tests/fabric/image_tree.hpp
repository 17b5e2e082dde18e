#pragma once
// Test helpers for the fabric checks: fake node trees with a fake EFA image of real ELF files
// (tests/support/make-node-tree *-ofi kinds, tests/fabric/make-efa-image), built once per kind
// and copied for each test, since gcc makes them slowly.
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "../support/fixtures.hpp"

namespace fabric_fixtures {

inline void run(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) {
    throw std::runtime_error("test fixture command failed: " + cmd);
  }
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// A tree of `kind` (make-node-tree's kinds; "image" alone: only the EFA image, no node files)
// in a temp dir of its own. sh() changes it with a bash script run at its root.
class ImageTree : public fixtures::TempDir {
 public:
  explicit ImageTree(const std::string& kind, const std::string& host = "training-1") {
    static std::map<std::string, std::unique_ptr<fixtures::TempDir>> built;
    auto& pristine = built[kind + "/" + host];
    if (!pristine) {
      pristine = std::make_unique<fixtures::TempDir>();
      if (kind == "image") {
        run("bash " + quote(script("fabric/make-efa-image")) + " " + quote(pristine->path()));
      } else {
        run("bash " + quote(script("support/make-node-tree")) + " " + kind + " " + quote(pristine->path()) + " " + host);
      }
    }
    run("cp -a " + quote(pristine->path()) + "/. " + quote(path()));
  }

  // Runs `script` with bash at the tree's root, $T being the root; `set -e`.
  void sh(const std::string& script_text) const {
    run("cd " + quote(path()) + " && T=" + quote(path()) + " bash -ec " + quote(script_text));
  }

  // Builds a shared object at `rel` (under the root) with make-efa-image --lib.
  void lib(const std::string& rel, const std::string& soname, const std::string& text,
           const std::string& gcc_args = "") const {
    sh("bash " + quote(script("fabric/make-efa-image")) + " --lib \"$T\"" + quote(rel) + " " + quote(soname) + " " +
       quote(text) + " " + gcc_args);
  }

  void ldconfig() const { run("bash " + quote(script("fabric/make-efa-image")) + " --ldconfig " + quote(path())); }

  static std::string script(const std::string& rel) { return std::string(RAYLAUNCH_TESTS_DIR) + "/" + rel; }
};

}  // namespace fabric_fixtures
