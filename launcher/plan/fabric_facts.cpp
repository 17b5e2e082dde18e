// Gathers FabricFacts: the image's NCCL, its net plugin and libfabric as the dynamic linker
// would find them (launcher/fabric), and the node's GPUDirect RDMA facts. Sources:
// ../shared/reference/fabric-and-node-checks.md ("Plugin library location", §9) and the
// upstream files cited next to each rule.
#include "plan/fabric_facts.hpp"

#include <strings.h>

#include <optional>

#include "fabric/dynamic_linker.hpp"
#include "fabric/embedded_text.hpp"
#include "fabric/version_check.hpp"
#include "util/host_fs.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// Of a .rodata section: NCCL's is the largest. 16 MiB costs ~2 ms from the page cache
// (benchmarks/results/fabric.md); a version string further in is reported unknown.
constexpr std::size_t k_version_scan = 16ULL << 20;

// The string aws-ofi-nccl logs at init, "NET/OFI Initializing " PACKAGE_STRING
// (src/nccl_ofi_net.cpp; NCCL_OFI_INFO prefixes "NET/OFI ", include/nccl_ofi_log.h), with
// PACKAGE_STRING "aws-ofi-nccl <version>" from AC_INIT (configure.ac): the same literal from
// v1.7.4-aws to v1.21.1.
constexpr std::string_view k_plugin_marker = "NET/OFI Initializing aws-ofi-nccl ";
// NCCL's VERSION_STRING, "NCCL version " major.minor.patch suffix "+cuda" … (src/init.cc),
// kept whole "so that running strings on the lib can quickly reveal the version".
constexpr std::string_view k_nccl_marker = "NCCL version ";

// Where aws-ofi-nccl has been installed (fabric-and-node-checks.md "Plugin library location":
// EFA installer, NeMo-RL#1973/#2585, awsome #935).
constexpr const char* k_plugin_dirs[] = {
    "/opt/amazon/ofi-nccl/lib",       "/opt/amazon/ofi-nccl/lib64",   "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu",
    "/opt/amazon/ofi-nccl/lib/aarch64-linux-gnu", "/opt/aws-ofi-nccl/lib", "/opt/amazon/aws-ofi-nccl/lib"};

std::string describe(const std::vector<fabric::SearchedPlace>& places) {
  std::vector<std::string> parts;
  for (const fabric::SearchedPlace& p : places) {
    parts.push_back(p.dirs.empty() ? p.label : p.label + " (" + util::join(p.dirs, ", ") + ")");
  }
  return util::join(parts, "; ");
}

LibraryLoad to_load(const fabric::ImageRoot& root, const fabric::LoadReport& r, std::string_view name) {
  LibraryLoad out;
  out.name = std::string(name);
  if (r.found()) {
    out.path = r.objects.front().path;
    out.real_path = r.objects.front().real_path;
    out.via = r.objects.front().via;
  }
  for (const fabric::LoadedObject& o : r.objects) {
    out.objects.emplace_back(o.name, o.path);
  }
  for (const fabric::MissingLibrary& m : r.missing) {
    out.problems.push_back({LibraryProblem::Kind::missing, m.name, m.needed_by, "not found in " + describe(m.searched), ""});
  }
  for (const fabric::UnusableLibrary& u : r.unusable) {
    out.problems.push_back({LibraryProblem::Kind::unusable, u.name, u.needed_by, u.path + ": " + u.why, ""});
  }
  // Symbol versions: every file is there, yet ld.so refuses an object whose provider lacks a
  // version it needs (a plugin built on a newer libfabric, a library built on a newer glibc).
  for (const fabric::MissingVersion& m : fabric::check_versions(root, r).missing) {
    out.problems.push_back({LibraryProblem::Kind::version, m.provider, m.object,
                            m.provider_path + " does not define " + m.version +
                                (m.newest.empty() ? "" : " (it defines up to " + m.newest + ")"),
                            m.version});
  }
  out.limit = r.limit;
  return out;
}

std::optional<fabric::LdCache> read_ld_cache(const fabric::ImageRoot& root, std::string& problem) {
  auto file = root.open("/etc/ld.so.cache");
  if (!file) {
    problem = file.error().kind == fabric::OpenError::missing ? "no /etc/ld.so.cache"
                                                               : "/etc/ld.so.cache: " + file.error().why;
    return std::nullopt;
  }
  if (file->size() > fabric::LdCache::k_max_bytes) {
    problem = "/etc/ld.so.cache: larger than " + util::format_size(fabric::LdCache::k_max_bytes);
    return std::nullopt;
  }
  auto bytes = file->read_at(0, static_cast<std::size_t>(file->size()));
  auto cache = bytes ? fabric::LdCache::parse(std::move(*bytes)) : util::Result<fabric::LdCache>::failure("unreadable");
  if (!cache) {
    problem = "/etc/ld.so.cache: " + cache.error();
    return std::nullopt;
  }
  return std::move(cache).value();
}

// The libnccl.so.2 the training process would load (inference from the loaders' rules):
// LD_PRELOAD wins (sample-rlinf-on-eks preloads /opt/nccl/build/lib/libnccl.so); else the
// linker's search from the program; else the nvidia-nccl wheel of the active venv, where a pip
// torch's RPATH points.
fabric::LoadReport locate_nccl(const fabric::ImageRoot& root, const fabric::DynamicLinker& linker,
                               const util::EnvMap& env, std::string& via) {
  for (const std::string& entry : util::split_words(util::env_value(env, "LD_PRELOAD"))) {
    for (const std::string& item : fabric::split_library_path(entry)) {
      if (fabric::base_name(item).starts_with("libnccl.so")) {
        via = "LD_PRELOAD";
        return linker.locate(item, nullptr);
      }
    }
  }
  fabric::LoadReport found = linker.locate("libnccl.so.2", nullptr);
  if (found.found() || !found.unusable.empty()) {
    return found;
  }
  const std::string venv = util::env_value(env, "VIRTUAL_ENV");
  if (!venv.empty() && venv.front() == '/') {
    for (const std::string& python : root.list(venv + "/lib", 64)) {
      if (python.starts_with("python3")) {
        const std::string wheel = venv + "/lib/" + python + "/site-packages/nvidia/nccl/lib/libnccl.so.2";
        fabric::LoadReport r = linker.locate(wheel, nullptr);
        if (r.found() || !r.unusable.empty()) {
          via = "the venv's nvidia-nccl wheel";
          return r;
        }
      }
    }
  }
  return found;
}

std::string version_of(const fabric::ImageRoot& root, const std::string& path, std::string_view marker) {
  auto file = root.open(path);
  if (!file) {
    return "";
  }
  return fabric::find_tagged_word(*file, ".rodata", marker, k_version_scan).value_or("");
}

// A pip-installed NCCL (…/site-packages/nvidia/nccl/lib/libnccl.so.2) has no version in its
// name, but its wheel's .dist-info directory does: "nvidia_nccl_cu12-2.27.3.dist-info" (the
// wheel spec's {distribution}-{version}.dist-info). Cheaper than scanning a big .rodata.
std::optional<std::pair<std::string, std::string>> wheel_version(const fabric::ImageRoot& root,
                                                                 const std::string& path) {
  const std::string suffix = "/nvidia/nccl/lib/" + std::string(fabric::base_name(path));
  if (!path.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string site = path.substr(0, path.size() - suffix.size());
  for (const std::string& name : root.list(site, 4096)) {
    if (name.starts_with("nvidia_nccl_cu") && name.ends_with(".dist-info")) {
      const std::size_t dash = name.find('-');
      if (dash != std::string::npos) {
        return std::pair<std::string, std::string>(name.substr(dash + 1, name.size() - dash - 1 - 10), name);
      }
    }
  }
  return std::nullopt;
}

void gather_gdr(const std::string& host_root, const std::vector<std::string>& efa_devices, GdrFacts& gdr) {
  const util::HostFs fs(host_root);
  gdr.kernel_release = fs.read_line("/proc/sys/kernel/osrelease").value_or("");
  gdr.nvidia_driver = fs.read_line("/proc/driver/nvidia/version").value_or("");
  gdr.efa_driver = fs.read_line("/sys/module/efa/version").value_or("");
  for (const std::string& dev : efa_devices) {
    // amzn-drivers efa_sysfs.c: device/p2p names the first NVIDIA P2P provider the driver
    // can use ("NVIDIA", "NVIDIA peermem") and is empty with none; device/gdr came before it.
    if (const auto p2p = fs.read_line("/sys/class/infiniband/" + dev + "/device/p2p")) {
      gdr.efa_p2p.emplace_back(dev, *p2p);
    } else if (const auto flag = fs.read_line("/sys/class/infiniband/" + dev + "/device/gdr")) {
      gdr.efa_gdr.emplace_back(dev, *flag);
    }
  }
  gdr.efa_nv_peermem = fs.is_dir("/sys/module/efa_nv_peermem");
  gdr.nvidia_peermem = fs.is_dir("/sys/module/nvidia_peermem");
}

}  // namespace

const LibraryLoad* FabricFacts::loaded_plugin() const {
  for (const LibraryLoad& a : plugin_attempts) {
    if (a.loads()) {
      return &a;
    }
  }
  return nullptr;
}

const LibraryLoad* FabricFacts::found_plugin() const {
  if (const LibraryLoad* p = loaded_plugin()) {
    return p;
  }
  for (const LibraryLoad& a : plugin_attempts) {
    if (a.found()) {
      return &a;
    }
  }
  return nullptr;
}

std::vector<std::string> nccl_plugin_candidates(bool set, std::string_view setting) {
  if (!set) {
    return {"libnccl-net.so"};  // net.cc: defaultNetPlugin
  }
  if (::strcasecmp(std::string(setting).c_str(), "none") == 0) {
    return {};
  }
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= setting.size()) {
    const std::size_t comma = setting.find(',', start);
    const std::string_view item = setting.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (!item.empty()) {
      out.emplace_back(item);  // plugin_open.cc: the name as given first
      // … then libnccl-net-<name>.so, unless it is a path or already a library's name.
      const bool path = item.find('/') != std::string_view::npos;
      const bool lib_name = item.starts_with("lib") && item.size() >= 3 && item.ends_with(".so");
      if (!path && !lib_name) {
        out.push_back("libnccl-net-" + std::string(item) + ".so");
      }
    }
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  return out;
}

FabricFacts gather_fabric_facts(const std::string& host_root, const util::EnvMap& env,
                                const std::vector<std::string>& efa_devices) {
  FabricFacts facts;
  facts.inspected = true;
  const fabric::ImageRoot root(host_root);
  const std::optional<fabric::LdCache> cache = read_ld_cache(root, facts.ld_cache_problem);
  facts.library_path = util::env_value(env, "LD_LIBRARY_PATH");
  const fabric::DynamicLinker linker(
      root, {fabric::split_library_path(facts.library_path), cache ? &*cache : nullptr,
             facts.ld_cache_problem == "no /etc/ld.so.cache" ? "none" : facts.ld_cache_problem, fabric::host_machine()});

  // NCCL first: it dlopens the plugin, so its own RUNPATH/RPATH is part of the plugin's search.
  std::string nccl_via;
  const fabric::LoadReport nccl = locate_nccl(root, linker, env, nccl_via);
  facts.nccl = to_load(root, nccl, "libnccl.so.2");
  if (!nccl_via.empty() && facts.nccl.found()) {
    facts.nccl.via = nccl_via;
  }
  if (facts.nccl.found()) {
    const std::string file_name(fabric::base_name(facts.nccl.real_path));
    if (auto v = fabric::version_in_file_name(file_name, "libnccl.so.")) {
      facts.nccl_version = *v;
      facts.nccl_version_source = "file name " + file_name;
    } else if (auto w = wheel_version(root, facts.nccl.path)) {
      facts.nccl_version = w->first;
      facts.nccl_version_source = w->second;
    } else if (auto e = version_of(root, facts.nccl.path, k_nccl_marker); !e.empty()) {
      facts.nccl_version = e;
      facts.nccl_version_source = "embedded string";
    }
  }
  const fabric::LoadedObject* caller = nccl.found() ? &nccl.objects.front() : nullptr;

  const auto setting = env.find("NCCL_NET_PLUGIN");
  facts.plugin_setting = setting != env.end() ? setting->second : "";
  std::optional<fabric::LoadReport> plugin;
  for (const std::string& name : nccl_plugin_candidates(setting != env.end(), facts.plugin_setting)) {
    fabric::LoadReport r = linker.dlopen(name, caller);
    facts.plugin_attempts.push_back(to_load(root, r, name));
    if (r.found() && !plugin) {
      plugin = r;
    }
    if (facts.plugin_attempts.back().loads()) {
      plugin = std::move(r);
      break;
    }
  }
  if (plugin) {
    facts.plugin_version = version_of(root, plugin->objects.front().path, k_plugin_marker);
    facts.libfabric = to_load(root, linker.dlopen("libfabric.so.1", &plugin->objects.front()), "libfabric.so.1");
  } else {
    facts.libfabric = to_load(root, linker.dlopen("libfabric.so.1", caller), "libfabric.so.1");
  }

  if (facts.loaded_plugin() == nullptr) {
    // Plugin files where aws-ofi-nccl installs them, and whether the search finds them under
    // their own name: then only NCCL_NET_PLUGIN is wrong (aws-ofi-nccl ≥ 1.15 names its plugin
    // libnccl-net-ofi.so, libnccl-net.so being a link --disable-nccl-net-symlink leaves out:
    // RELEASENOTES v1.15.0); else the directory is off the search path.
    for (const char* dir : k_plugin_dirs) {
      for (const std::string& name : root.list(dir, 256)) {
        if ((name == "libnccl-net.so" || name.starts_with("libnccl-net-")) && name.ends_with(".so")) {
          const std::string path = std::string(dir) + "/" + name;
          const fabric::LoadReport r = linker.locate(name, caller);
          facts.plugin_hints.push_back({path, r.found() && r.objects.front().path == path});
        }
      }
    }
  }
  gather_gdr(host_root, efa_devices, facts.gdr);
  facts.files_opened = root.opens();
  return facts;
}

}  // namespace launcher
