#pragma once
// Test helpers: temp dirs, fake node trees (tests/support/make-node-tree), settings builders.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "util/fatal.hpp"
#include "plan/plan_items.hpp"
#include "plan/node_checks.hpp"
#include "plan/pod_facts.hpp"
#include "config/settings.hpp"

namespace fixtures {

// The whole file at `path`, bytes as they are ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "raylaunch-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

// A fake node tree of `kind` (p4de, p4de-2efa, p5, g5-noefa, workstation) under a new temp dir.
class NodeTree : public TempDir {
 public:
  explicit NodeTree(const std::string& kind, const std::string& host = "training-0") {
    const std::string cmd = "bash '" RAYLAUNCH_TESTS_DIR "/support/make-node-tree' " + kind + " '" + path() + "' " + host;
    if (std::system(cmd.c_str()) != 0) {
      throw std::runtime_error("make-node-tree failed: " + cmd);
    }
  }

  // One fault of tests/support/break-node-tree ("gpu-fell-off 0000:13:00.0", "port rdmap0s0 …"),
  // words as a shell splits them (quote a word with spaces: "port rdmap0s0 '1: DOWN' …").
  void inject(const std::string& fault) const { inject_into(path(), fault); }

  static void inject_into(const std::string& dir, const std::string& fault) {
    const std::string cmd = "bash '" RAYLAUNCH_TESTS_DIR "/support/break-node-tree' '" + dir + "' " + fault;
    if (std::system(cmd.c_str()) != 0) {
      throw std::runtime_error("break-node-tree failed: " + cmd);
    }
  }
};

// Settings as if given as flags (key → text), with `env` as the environment; every setting is
// read, as `plan` and `run` read theirs.
inline launcher::Config config(const std::map<std::string, std::string>& flags, const launcher::EnvMap& env = {}) {
  return launcher::parse_config(launcher::RawSettings(flags, env), launcher::Commands::all());
}

// The limits of a well-configured EKS GPU pod, so that tests do not depend on the limits of the
// machine running them (memlock is 8 MiB and cannot be raised on ours).
inline launcher::util::ProcessLimits eks_limits() {
  return {launcher::util::Limit{std::nullopt, std::nullopt}, launcher::util::Limit{1048576, 1048576}};
}

// The node checks of the facts gathered from `tree`, under settings `flags` (as flags), with a
// well-configured EKS pod's limits.
inline std::vector<launcher::Check> node_checks_on(const NodeTree& tree,
                                                   std::map<std::string, std::string> flags = {}) {
  flags["host_root"] = tree.path();
  const launcher::NodeFacts node = launcher::gather_node_facts(tree.path());
  return launcher::node_checks(node, eks_limits(), launcher::settle_expectations(config(flags), node));
}

// The variable named `name` among `vars` (a plan's or fabric_env's); nullptr when absent.
inline const launcher::EnvVar* env_var(const std::vector<launcher::EnvVar>& vars, const std::string& name) {
  for (const launcher::EnvVar& v : vars) {
    if (v.name == name) {
      return &v;
    }
  }
  return nullptr;
}

// Whether a check named `name` is among `checks`.
inline bool has_check(const std::vector<launcher::Check>& checks, const std::string& name) {
  for (const launcher::Check& c : checks) {
    if (c.name == name) {
      return true;
    }
  }
  return false;
}

// The check named `name`; throws (a failed test) when there is none.
inline launcher::Check check_named(const std::vector<launcher::Check>& checks, const std::string& name) {
  for (const launcher::Check& c : checks) {
    if (c.name == name) {
      return c;
    }
  }
  throw std::runtime_error("no check named " + name);
}

// The Fatal lines thrown by `f`, or {"<no error>"}.
template <typename F>
std::vector<std::string> fatal_lines(F&& f, int* code = nullptr) {
  try {
    f();
  } catch (const launcher::Fatal& e) {
    if (code != nullptr) {
      *code = e.code();
    }
    return e.lines();
  }
  return {"<no error>"};
}

}  // namespace fixtures
