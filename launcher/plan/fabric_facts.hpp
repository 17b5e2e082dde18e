#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/env_map.hpp"

namespace launcher {

// A library that would not load: missing everywhere the linker looks, found but unusable
// (a symlink loop, a directory, a truncated ELF file), or found without a symbol version an
// object needs from it (`version`: ld.so's "version `FABRIC_1.7' not found").
struct LibraryProblem {
  enum class Kind { missing, unusable, version };
  Kind kind = Kind::missing;
  std::string library;    // the name looked for
  std::string needed_by;  // the path of the object that needs it; "" for the library asked for
  std::string detail;     // missing: the places searched; unusable: "<path>: <why>"; version: what is missing
  std::string version;    // version: the one needed ("FABRIC_1.7", "GLIBC_2.38")
};

// Where the dynamic linker would find one library, and whether all it needs would load too.
struct LibraryLoad {
  std::string name;       // as asked for
  std::string path;       // under the host root; "" when not found
  std::string real_path;  // `path` with symlinks resolved
  std::string via;        // "LD_LIBRARY_PATH", "RUNPATH of …", "ld.so.cache", "LD_PRELOAD", …
  std::vector<std::pair<std::string, std::string>> objects;  // everything loaded: name → path
  std::vector<LibraryProblem> problems;
  std::string limit;      // non-empty: the walk stopped at a limit

  bool found() const { return !path.empty(); }
  bool loads() const { return found() && problems.empty() && limit.empty(); }
};

// A net plugin file NCCL would not load as configured, and why it matters for the fix.
struct PluginHint {
  std::string path;
  bool on_search_path = false;  // found by the linker's search under another name (needs NCCL_NET_PLUGIN)
};

// What GPUDirect RDMA depends on, read from /proc and /sys (fabric-and-node-checks.md, GDR).
struct GdrFacts {
  std::string kernel_release;   // /proc/sys/kernel/osrelease
  std::string nvidia_driver;    // first line of /proc/driver/nvidia/version
  std::string efa_driver;       // /sys/module/efa/version (out-of-tree driver only)
  std::vector<std::pair<std::string, std::string>> efa_p2p;  // ibdev → device/p2p (EFA driver ≥ 2.6.0)
  std::vector<std::pair<std::string, std::string>> efa_gdr;  // ibdev → device/gdr (EFA driver 1.9–2.5)
  bool efa_nv_peermem = false;  // /sys/module/efa_nv_peermem
  bool nvidia_peermem = false;  // /sys/module/nvidia_peermem
};

// The image as NCCL in the training process would load it, and the node's GDR facts.
struct FabricFacts {
  bool inspected = false;                 // false: nothing was read (facts built by hand)
  std::string library_path;               // the LD_LIBRARY_PATH searched
  std::string ld_cache_problem;           // "" when /etc/ld.so.cache was read
  std::string plugin_setting;             // NCCL_NET_PLUGIN ("" unset)
  std::vector<LibraryLoad> plugin_attempts;  // NCCL's candidates in its order, up to the one that loads
  std::vector<PluginHint> plugin_hints;   // only when no candidate loads
  std::string plugin_version;             // the aws-ofi-nccl version in the plugin found; "" unknown
  LibraryLoad libfabric;                  // libfabric.so.1 as the plugin needs it
  LibraryLoad nccl;                       // the libnccl.so.2 the process would load
  std::string nccl_version;               // "" unknown
  std::string nccl_version_source;        // "file name" or "embedded string"
  GdrFacts gdr;
  std::size_t files_opened = 0;

  const LibraryLoad* loaded_plugin() const;  // the first attempt that loads; nullptr when none
  const LibraryLoad* found_plugin() const;   // the first attempt found, loadable or not
};

// Reads the image under `host_root` as the dynamic linker of a process with environment `env`
// would (LD_LIBRARY_PATH, LD_PRELOAD, NCCL_NET_PLUGIN, VIRTUAL_ENV: the environment ray start
// gets), and the node's GDR facts for the EFA devices `efa_devices`. Reads ELF headers and
// dynamic sections only, never loads anything; bounded in files opened and bytes read.
FabricFacts gather_fabric_facts(const std::string& host_root, const util::EnvMap& env,
                                const std::vector<std::string>& efa_devices);

// NCCL's net-plugin candidates for NCCL_NET_PLUGIN=`setting` (`set` false: unset), in the
// order NCCL tries them (NVIDIA/nccl src/plugin/plugin_open.cc, src/plugin/net.cc).
std::vector<std::string> nccl_plugin_candidates(bool set, std::string_view setting);

// The seam make_plan calls: the facts above for the environment the plan gives ray start.
using FabricProbe = std::function<FabricFacts(const util::EnvMap& env)>;

}  // namespace launcher
