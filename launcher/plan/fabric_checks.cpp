// Fabric checks: will NCCL load its EFA plugin, and everything the plugin needs? Rules and
// fixes: ../shared/reference/fabric-and-node-checks.md ("Plugin library location", §9); the
// upstream source of each is named where it is applied.
#include "plan/fabric_checks.hpp"

#include <strings.h>

#include "fabric/embedded_text.hpp"
#include "fabric/image_root.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

constexpr std::size_t k_problems_shown = 3;

std::string env_value(const EnvMap& env, const std::string& name) {
  const auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

// The CUDA runtime and driver libraries are in the process before NCCL dlopens its plugin
// (a pip torch loads libcudart through its own RPATH; the NVIDIA container runtime mounts
// libcuda): a search for them that fails here proves nothing (inference).
bool preloaded_by_the_process(const std::string& library) {
  return library.starts_with("libcudart.so") || library.starts_with("libcuda.so") ||
         library.starts_with("libnvidia-ml.so");
}

std::string problem_text(const LibraryProblem& p) {
  const std::string who = p.library + (p.needed_by.empty() ? "" : " (needed by " + p.needed_by + ")");
  if (p.kind == LibraryProblem::Kind::version) {
    return p.needed_by + " needs " + p.version + " of " + p.library + ": " + p.detail;
  }
  return p.kind == LibraryProblem::Kind::missing ? who + " " + p.detail : who + " is unusable: " + p.detail;
}

std::string problems_text(const LibraryLoad& l) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < l.problems.size() && i < k_problems_shown; ++i) {
    parts.push_back(problem_text(l.problems[i]));
  }
  if (l.problems.size() > k_problems_shown) {
    parts.push_back("and " + std::to_string(l.problems.size() - k_problems_shown) + " more");
  }
  if (!l.limit.empty()) {
    parts.push_back("stopped: " + l.limit);
  }
  return util::join(parts, "; ");
}

// A library that does not load: fail when something is surely missing and the cluster needs
// the network; warn when the evidence is weaker (an unreadable file, a CUDA library) or one
// node needs no network.
CheckStatus severity(const LibraryLoad& l, int nodes) {
  bool sure = !l.found() && l.problems.empty();
  for (const LibraryProblem& p : l.problems) {
    sure = sure || (p.kind == LibraryProblem::Kind::missing && !preloaded_by_the_process(p.library)) ||
           p.kind == LibraryProblem::Kind::version;
  }
  return sure && nodes > 1 ? CheckStatus::fail : CheckStatus::warn;
}

// What NCCL does without its plugin: falls back to TCP sockets at a tenth of EFA's bandwidth,
// or, with NCCL_NET=Libfabric (raylaunch's strict default), stops at its first communicator.
std::string consequence(const EnvMap& env) {
  return ::strcasecmp(env_value(env, "NCCL_NET").c_str(), "Libfabric") == 0
             ? "; with NCCL_NET=Libfabric NCCL stops at its first communicator"
             : "; NCCL then falls back to TCP sockets";
}

std::string single_node_note(int nodes) {
  return nodes > 1 ? "" : " (one node: NCCL needs no network between its GPUs, so only a warning)";
}

// A version ld.so would not find: a newer provider, or the needing library built for the old one.
std::string version_fix(const LibraryProblem& p) {
  if (p.version.starts_with("GLIBC_")) {
    return "use a base image whose glibc defines " + p.version + " (glibc " + p.version.substr(6) +
           " or later), or rebuild " + std::string(fabric::base_name(p.needed_by)) + " on the image's glibc";
  }
  // p.detail begins with the provider's path (fabric_facts.cpp to_load).
  const std::string where = p.detail.substr(0, p.detail.find(' '));
  return "install a " + p.library + " that defines " + p.version +
         (p.library.starts_with("libfabric") ? " (the EFA installer's current one for libfabric)" : "") +
         " ahead of " + where + " on LD_LIBRARY_PATH, or use a " + std::string(fabric::base_name(p.needed_by)) +
         " built against the image's " + p.library;
}

// The fix for a library that was found but cannot load.
std::string load_fix(const LibraryLoad& l) {
  for (const LibraryProblem& p : l.problems) {
    if (p.kind == LibraryProblem::Kind::missing) {
      return "install " + p.library + " in the image (a multi-stage build left it out, as in prime-rl#3452) or put "
             "its directory on LD_LIBRARY_PATH";
    }
  }
  for (const LibraryProblem& p : l.problems) {
    if (p.kind == LibraryProblem::Kind::version) {
      return version_fix(p);
    }
  }
  if (!l.problems.empty()) {
    return "replace " + l.problems.front().library + " with a complete copy (" + l.problems.front().detail + ")";
  }
  return "remove the dependency cycle or the extra libraries that make the walk stop (" + l.limit + ")";
}

std::string loaded_text(const LibraryLoad& l) {
  std::string out = l.name + " → " + l.path;
  if (!l.real_path.empty() && l.real_path != l.path) {
    out += " (→ " + std::string(fabric::base_name(l.real_path)) + ")";
  }
  return out + " via " + l.via;
}

Check check_efa_provider(const NodeFacts& node, int nodes) {
  if (node.other_uverbs.empty()) {
    return {"efa-provider", CheckStatus::pass, "only EFA devices in /dev/infiniband", ""};
  }
  // libfabric's EFA provider opens every verbs device and gives up on all of them when one
  // will not open (prov/efa/src/efa_device.c efa_device_list_initialize); aws-do-eks#63
  // measured `fi_info -p efa` → -61 with 2 mlx5 devices from a hostPath beside 8 EFA ones.
  return {"efa-provider", nodes > 1 ? CheckStatus::fail : CheckStatus::warn,
          "non-EFA verbs devices beside the EFA ones: " + util::join(node.other_uverbs, ", ") +
              "; libfabric's EFA provider fails when one will not open (fi_info -p efa: -61) and NCCL uses TCP" +
              single_node_note(nodes),
          "remove the /dev/infiniband hostPath mount and let the EFA device plugin (≥ 0.5.10) inject only EFA "
          "devices (aws-do-eks#63, sagemaker-hyperpod-cli#282)"};
}

// The fix when a plugin file exists that NCCL does not load as configured: the setting that
// makes NCCL load it, libnccl-net-ofi.so first; else the directory to put on the search path.
std::string plugin_hint_fix(const FabricFacts& image) {
  const PluginHint* best = nullptr;
  for (const PluginHint& h : image.plugin_hints) {
    const bool ofi = fabric::base_name(h.path) == "libnccl-net-ofi.so";
    if (h.on_search_path && (best == nullptr || !best->on_search_path || ofi)) {
      best = &h;
    }
  }
  if (best == nullptr) {
    return "add " + fabric::parent_dir(image.plugin_hints.front().path) +
           " to LD_LIBRARY_PATH (left unset, raylaunch sets it to the EFA directories that exist)";
  }
  const std::string_view name = fabric::base_name(best->path);
  if (name == "libnccl-net.so") {
    return "unset NCCL_NET_PLUGIN: NCCL then loads libnccl-net.so";
  }
  const std::string suffix(name.substr(12, name.size() - 12 - 3));  // libnccl-net-<suffix>.so
  return "set NCCL_NET_PLUGIN=" + suffix +
         (suffix == "ofi" ? ": aws-ofi-nccl ≥ 1.15 names its plugin libnccl-net-ofi.so (RELEASENOTES v1.15.0)" : "");
}

Check check_plugin(const FabricFacts& image, const EnvMap& env, int nodes) {
  Check c{"nccl-net-plugin", CheckStatus::pass, "", ""};
  const std::string setting = image.plugin_setting.empty() ? "NCCL_NET_PLUGIN unset"
                                                           : "NCCL_NET_PLUGIN=" + util::printable(image.plugin_setting);
  if (image.plugin_attempts.empty()) {
    return {"nccl-net-plugin", CheckStatus::warn, setting + ": NCCL loads no net plugin, so it cannot use EFA",
            "unset NCCL_NET_PLUGIN (or set it to ofi)"};
  }
  if (const LibraryLoad* p = image.loaded_plugin()) {
    c.detail = loaded_text(*p) + ", " +
               (image.plugin_version.empty() ? "version not embedded" : "aws-ofi-nccl " + image.plugin_version) +
               "; the " + std::to_string(p->objects.size()) + " libraries it loads all resolve";
    return c;
  }
  if (const LibraryLoad* p = image.found_plugin()) {
    c.status = severity(*p, nodes);
    c.detail = p->path + " cannot load: " + problems_text(*p) + consequence(env) + single_node_note(nodes);
    c.fix = load_fix(*p);
    return c;
  }
  std::vector<std::string> names;
  const LibraryLoad* shown = &image.plugin_attempts.back();
  for (const LibraryLoad& a : image.plugin_attempts) {
    names.push_back(a.name);
    if (!a.problems.empty() && a.problems.front().kind == LibraryProblem::Kind::unusable) {
      shown = &a;
    }
  }
  const bool unusable = !shown->problems.empty() && shown->problems.front().kind == LibraryProblem::Kind::unusable;
  c.status = unusable ? CheckStatus::warn : severity(*shown, nodes);
  c.detail = setting + ": NCCL would load " + util::join(names, ", then ") + ": " +
             (unusable ? problems_text(*shown) : shown->problems.front().detail) + consequence(env) +
             single_node_note(nodes);
  c.fix = "install aws-ofi-nccl (the EFA installer: efa_installer.sh -y -g -d --skip-kmod --skip-limit-conf "
          "--no-verify) and put its lib directory on LD_LIBRARY_PATH";
  if (!image.plugin_hints.empty()) {
    std::vector<std::string> paths;
    for (const PluginHint& h : image.plugin_hints) {
      paths.push_back(h.path);
    }
    c.detail += "; " + util::join(paths, ", ") + (paths.size() == 1 ? " exists" : " exist");
    c.fix = plugin_hint_fix(image);
  }
  return c;
}

Check check_libfabric(const FabricFacts& image, const EnvMap& env, int nodes) {
  const LibraryLoad& l = image.libfabric;
  if (l.loads()) {
    return {"libfabric", CheckStatus::pass,
            loaded_text(l) + "; the " + std::to_string(l.objects.size()) + " libraries it loads all resolve", ""};
  }
  const bool unusable = !l.problems.empty() && l.problems.front().kind == LibraryProblem::Kind::unusable;
  Check c{"libfabric", unusable ? CheckStatus::warn : severity(l, nodes), "", ""};
  if (!l.found()) {
    c.detail = problems_text(l) + consequence(env) + single_node_note(nodes);
    c.fix = unusable ? load_fix(l)
                     : "install the EFA installer's libfabric (/opt/amazon/efa/lib) and put that directory on "
                       "LD_LIBRARY_PATH";
    return c;
  }
  c.detail = l.path + " cannot load: " + problems_text(l) + consequence(env) + single_node_note(nodes);
  c.fix = load_fix(l);
  return c;
}

// aws-ofi-nccl's oldest supported NCCL: 2.17.1 from v1.10.0-aws on, 2.4.8 before
// (RELEASENOTES.md @ v1.21.1, each release's header; v1.10.0-aws at line 495).
std::string oldest_nccl_for(const std::string& plugin_version) {
  return fabric::compare_versions(plugin_version, "1.10.0") >= 0 ? "2.17.1" : "2.4.8";
}

Check check_nccl(const FabricFacts& image) {
  const LibraryLoad& n = image.nccl;
  if (!n.found()) {
    if (!n.problems.empty() && n.problems.front().kind == LibraryProblem::Kind::unusable) {
      return {"nccl", CheckStatus::warn, problems_text(n), load_fix(n)};
    }
    return {"nccl", CheckStatus::pass,
            "no libnccl.so.2 in LD_PRELOAD, on the linker's search path or in the venv's nvidia-nccl wheel: the "
            "framework loads its own (not inspected)",
            ""};
  }
  Check c{"nccl", CheckStatus::pass, loaded_text(n) + ", ", ""};
  c.detail += image.nccl_version.empty() ? "version unknown (none in its file name or .rodata)"
                                         : "NCCL " + image.nccl_version + " (" + image.nccl_version_source + ")";
  if (!image.nccl_version.empty() && !image.plugin_version.empty()) {
    const std::string oldest = oldest_nccl_for(image.plugin_version);
    if (fabric::compare_versions(image.nccl_version, oldest) < 0) {
      c.status = CheckStatus::warn;
      c.detail += "; aws-ofi-nccl " + image.plugin_version + " supports NCCL " + oldest + " and later (its RELEASENOTES)";
      c.fix = "use NCCL " + oldest + " or later, or an aws-ofi-nccl release that supports NCCL " + image.nccl_version;
    }
  }
  return c;
}

// Settings the reference ties to aws-ofi-nccl version ranges (§3, RELEASENOTES @ v1.21.1).
Check check_plugin_version(const FabricFacts& image, const EnvMap& env) {
  const LibraryLoad* p = image.found_plugin();
  const std::string& v = image.plugin_version;
  if (v.empty()) {
    return {"aws-ofi-nccl", CheckStatus::pass,
            "no \"NET/OFI Initializing aws-ofi-nccl\" string in " + p->path + ": not aws-ofi-nccl, or too old to "
            "say; version rules not checked",
            ""};
  }
  if (fabric::compare_versions(v, "1.5.0") <= 0) {
    return {"aws-ofi-nccl", CheckStatus::warn,
            v + ": aws-ofi-nccl 1.5.0 and older need FI_PROVIDER=efa and NCCL_PROTO=simple (EFA cheatsheet), which "
                "raylaunch's environment assumes are not needed",
            "upgrade aws-ofi-nccl to 1.7 or later (the EFA installer bundles it)"};
  }
  std::vector<std::string> set;
  for (const char* name : {"NCCL_ALGO", "NCCL_PROTO"}) {
    if (!env_value(env, name).empty()) {
      set.push_back(std::string(name) + "=" + util::printable(env_value(env, name)));
    }
  }
  if (!set.empty() && fabric::compare_versions(v, "1.20.0") < 0) {
    // v1.20.0: "Fixed tuner segfault when NCCL_ALGO or NCCL_PROTO is explicitly set".
    return {"aws-ofi-nccl", CheckStatus::warn,
            v + " with " + util::join(set, ", ") + ": the plugin's tuner can segfault when these are set, fixed in "
                "1.20.0 (RELEASENOTES)",
            "unset NCCL_ALGO/NCCL_PROTO (the plugin's tuner chooses) or upgrade aws-ofi-nccl to 1.20.0 or later"};
  }
  return {"aws-ofi-nccl", CheckStatus::pass, v + ": no setting here is tied to a known issue of this version", ""};
}

}  // namespace

std::vector<Check> fabric_checks(const NodeFacts& node, const FabricFacts& image, const EnvMap& env, int nodes) {
  if (node.efa() == 0) {
    return {};  // no EFA: NCCL has no fabric to miss
  }
  std::vector<Check> out{check_efa_provider(node, nodes)};
  if (image.inspected) {
    out.push_back(check_plugin(image, env, nodes));
    out.push_back(check_libfabric(image, env, nodes));
    out.push_back(check_nccl(image));
    if (image.found_plugin() != nullptr) {
      out.push_back(check_plugin_version(image, env));
    }
    if (auto c = check_nccl_ray_gpu_isolation(node, image, env)) {
      out.push_back(std::move(*c));
    }
  }
  out.push_back(check_gdr(node, image, env));
  return out;
}

}  // namespace launcher
