#include <catch2/catch.hpp>

#include <algorithm>

#include "../fabric/image_tree.hpp"
#include "plan/fabric_checks.hpp"
#include "plan/plan.hpp"
#include "util/json.hpp"

using namespace launcher;
using fabric_fixtures::ImageTree;

namespace {

constexpr std::uint64_t k_gib = 1ULL << 30;
const std::string k_defaults =
    "default directories (/lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64, /lib, /usr/lib)";
const std::string k_ld_path = "LD_LIBRARY_PATH (/opt/amazon/efa/lib, /opt/amazon/ofi-nccl/lib)";
const std::string k_plugin = "/opt/amazon/ofi-nccl/lib/libnccl-net.so";

// The facts of pod training-1 of a 4-node cluster on `tree`, with a 64Gi tmpfs /dev/shm.
PodFacts facts_of(const ImageTree& tree, const EnvMap& env, std::map<std::string, std::string> flags) {
  flags["host_root"] = tree.path();
  flags.emplace("hostname", "training-1");
  flags.emplace("nodes", "4");
  flags.emplace("namespace", "ml");
  PodFacts f = gather_pod_facts(fixtures::config(flags, env), env, fixtures::eks_limits());
  f.node.shm = ShmFacts{64 * k_gib, 64 * k_gib, true};
  return f;
}

Plan plan_of(const ImageTree& tree, const EnvMap& env = {}, std::map<std::string, std::string> flags = {}) {
  const PodFacts f = facts_of(tree, env, flags);
  flags["host_root"] = tree.path();
  flags.emplace("hostname", "training-1");
  flags.emplace("nodes", "4");
  flags.emplace("namespace", "ml");
  return make_plan(fixtures::config(flags, env), f, {});
}

const Check* find(const Plan& plan, const std::string& name) {
  for (const Check& c : plan.checks) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

Check check(const Plan& plan, const std::string& name) {
  const Check* c = find(plan, name);
  INFO("check " << name);
  REQUIRE(c != nullptr);
  return *c;
}

// Adds a mlx5 verbs device the way a /dev/infiniband hostPath exposes one (aws-do-eks#63).
void add_mlx5(const ImageTree& tree) {
  tree.sh("mkdir -p sys/class/infiniband_verbs/uverbs9 sys/class/infiniband/mlx5_0/device sys/bus/pci/drivers/mlx5_core"
          " && : > dev/infiniband/uverbs9 && echo mlx5_0 > sys/class/infiniband_verbs/uverbs9/ibdev"
          " && ln -s ../../../../bus/pci/drivers/mlx5_core sys/class/infiniband/mlx5_0/device/driver");
}

}  // namespace

TEST_CASE("a complete EFA image: every fabric check passes and says what it found", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  const Plan plan = plan_of(tree);
  for (const char* name : {"efa-provider", "nccl-net-plugin", "libfabric", "nccl", "aws-ofi-nccl", "gdr"}) {
    INFO(name << ": " << check(plan, name).detail);
    CHECK(check(plan, name).status == CheckStatus::pass);
  }
  CHECK(check(plan, "nccl-net-plugin").detail ==
        "libnccl-net.so → " + k_plugin + " (→ libnccl-net-ofi.so) via LD_LIBRARY_PATH, aws-ofi-nccl 1.16.3; the 6 "
        "libraries it loads all resolve");
  CHECK(check(plan, "libfabric").detail ==
        "libfabric.so.1 → /opt/amazon/efa/lib/libfabric.so.1 (→ libfabric.so.1.26.0) via LD_LIBRARY_PATH; the 4 "
        "libraries it loads all resolve");
  CHECK(check(plan, "nccl").detail ==
        "libnccl.so.2 → /usr/lib/x86_64-linux-gnu/libnccl.so.2 (→ libnccl.so.2.27.7) via ld.so.cache, NCCL 2.27.7 "
        "(file name libnccl.so.2.27.7)");
  CHECK(check(plan, "gdr").detail ==
        "p4de.24xlarge: the EFA driver reaches GPU memory through its P2P provider \"NVIDIA peermem\" "
        "(/sys/class/infiniband/rdmap0s0/device/p2p)");
  CHECK(plan.exit_code() == 0);
}

TEST_CASE("no plugin in the image: strict stops with 78, warn reports, off reads nothing", "[fabric][checks]") {
  const ImageTree tree("p4de");
  const Plan strict = plan_of(tree);
  const Check plugin = check(strict, "nccl-net-plugin");
  CHECK(plugin.status == CheckStatus::fail);
  CHECK(plugin.detail == "NCCL_NET_PLUGIN unset: NCCL would load libnccl-net.so: not found in " + k_ld_path +
                             "; ld.so.cache (none); " + k_defaults +
                             "; with NCCL_NET=Libfabric NCCL stops at its first communicator");
  CHECK_THAT(plugin.fix, Catch::StartsWith("install aws-ofi-nccl (the EFA installer"));
  CHECK(check(strict, "libfabric").status == CheckStatus::fail);
  CHECK(check(strict, "nccl").status == CheckStatus::pass);
  CHECK(find(strict, "aws-ofi-nccl") == nullptr);  // no plugin, no version
  CHECK(strict.exit_code() == 78);

  const Plan warn = plan_of(tree, {}, {{"checks", "warn"}});
  CHECK(check(warn, "nccl-net-plugin").status == CheckStatus::fail);
  CHECK_THAT(check(warn, "nccl-net-plugin").detail, Catch::EndsWith("NCCL then falls back to TCP sockets"));
  CHECK(warn.exit_code() == 0);

  int probes = 0;
  PodFacts off = facts_of(tree, {}, {{"checks", "off"}});
  const FabricProbe real = off.node.probe_fabric;
  off.node.probe_fabric = [&](const EnvMap& env) {
    ++probes;
    return real(env);
  };
  const Plan unchecked = make_plan(fixtures::config({{"host_root", tree.path()}, {"hostname", "training-1"},
                                                     {"nodes", "4"}, {"namespace", "ml"}, {"checks", "off"}}),
                                   off, {});
  CHECK(unchecked.checks.empty());
  CHECK(probes == 0);
}

TEST_CASE("a damaged ld.so.cache is named where the search went", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  tree.sh("rm opt/amazon/ofi-nccl/lib/libnccl-net*.so && head -c 30 etc/ld.so.cache > c && mv c etc/ld.so.cache");
  CHECK_THAT(check(plan_of(tree), "nccl-net-plugin").detail,
             Catch::Contains("; ld.so.cache (/etc/ld.so.cache: truncated header); default directories"));
}

TEST_CASE("one node needs no network: a missing plugin only warns", "[fabric][checks]") {
  const ImageTree tree("p4de");
  const Plan plan = plan_of(tree, {}, {{"nodes", "1"}, {"hostname", "training-0"}});
  CHECK(check(plan, "nccl-net-plugin").status == CheckStatus::warn);
  CHECK_THAT(check(plan, "nccl-net-plugin").detail, Catch::EndsWith("so only a warning)"));
}

TEST_CASE("the plugin is there but a dependency is not: named, with every place searched", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  tree.sh("rm usr/lib/x86_64-linux-gnu/libhwloc.so.15*");
  tree.ldconfig();
  const Plan plan = plan_of(tree);
  const Check c = check(plan, "nccl-net-plugin");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == k_plugin + " cannot load: libhwloc.so.15 (needed by " + k_plugin + ") not found in " + k_ld_path +
                        "; RUNPATH of " + k_plugin + " (/opt/amazon/efa/lib); ld.so.cache; " + k_defaults +
                        "; with NCCL_NET=Libfabric NCCL stops at its first communicator");
  CHECK(c.fix ==
        "install libhwloc.so.15 in the image (a multi-stage build left it out, as in prime-rl#3452) or put its "
        "directory on LD_LIBRARY_PATH");
  CHECK(check(plan, "libfabric").status == CheckStatus::pass);
  CHECK(plan.exit_code() == 78);
}

TEST_CASE("every file is there but a symbol version is not: the plugin fails with the version named",
          "[fabric][checks][versions]") {
  const ImageTree tree("p4de-ofi");
  // A plugin linked against a libfabric defining FABRIC_1.7 (built aside), in an image whose
  // libfabric defines up to FABRIC_1.5: what an aws-ofi-nccl newer than the image's EFA
  // installer does.
  tree.sh(R"SH(mkdir -p "$T/tmp/new"
printf 'int fi_a(void) { return 0; }\nint fi_b(void) { return 1; }\n' > "$T/tmp/fabric.c"
printf 'FABRIC_1.0 { global: fi_a; local: *; };\nFABRIC_1.5 { global: fi_b; } FABRIC_1.0;\n' > "$T/tmp/old.map"
printf 'FABRIC_1.0 { global: fi_a; local: *; };\nFABRIC_1.7 { global: fi_b; } FABRIC_1.0;\n' > "$T/tmp/new.map"
gcc -shared -fPIC -nostdlib -o "$T/tmp/new/libfabric.so.1" "$T/tmp/fabric.c" -Wl,-soname,libfabric.so.1 -Wl,--version-script="$T/tmp/new.map"
gcc -shared -fPIC -nostdlib -o "$T/opt/amazon/efa/lib/libfabric.so.1.26.0" "$T/tmp/fabric.c" -Wl,-soname,libfabric.so.1 -Wl,--version-script="$T/tmp/old.map"
printf 'int fi_b(void);\nint plugin_init(void) { return fi_b(); }\n' > "$T/tmp/plugin.c"
gcc -shared -fPIC -nostdlib -o "$T/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so" "$T/tmp/plugin.c" \
  -Wl,-soname,libnccl-net-ofi.so -L"$T/tmp/new" -l:libfabric.so.1 -Wl,--enable-new-dtags,-rpath,/opt/amazon/efa/lib
)SH");
  const Plan plan = plan_of(tree);
  const Check c = check(plan, "nccl-net-plugin");
  CHECK(c.status == CheckStatus::fail);
  CHECK(c.detail == k_plugin + " cannot load: " + k_plugin + " needs FABRIC_1.7 of libfabric.so.1: "
                        "/opt/amazon/efa/lib/libfabric.so.1 does not define FABRIC_1.7 (it defines up to FABRIC_1.5)"
                        "; with NCCL_NET=Libfabric NCCL stops at its first communicator");
  CHECK(c.fix == "install a libfabric.so.1 that defines FABRIC_1.7 (the EFA installer's current one for libfabric) "
                 "ahead of /opt/amazon/efa/lib/libfabric.so.1 on LD_LIBRARY_PATH, or use a libnccl-net.so built "
                 "against the image's libfabric.so.1");
  CHECK(check(plan, "libfabric").status == CheckStatus::pass);
  CHECK(plan.exit_code() == 78);
}

TEST_CASE("found only through a RUNPATH: libnccl's for the plugin, the plugin's for libfabric", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  // NCCL dlopens the plugin, so NCCL's own RUNPATH is searched for it.
  tree.lib("/usr/lib/x86_64-linux-gnu/libnccl.so.2.27.7", "libnccl.so.2", "NCCL version 2.27.7+cuda12.8",
           "-Wl,--enable-new-dtags,-rpath,/opt/amazon/ofi-nccl/lib");
  const Plan plan = plan_of(tree, {{"LD_LIBRARY_PATH", "/opt/amazon/efa/lib"}});
  CHECK(check(plan, "nccl-net-plugin").status == CheckStatus::pass);
  CHECK_THAT(check(plan, "nccl-net-plugin").detail,
             Catch::StartsWith("libnccl-net.so → " + k_plugin +
                               " (→ libnccl-net-ofi.so) via RUNPATH of /usr/lib/x86_64-linux-gnu/libnccl.so.2,"));

  const Plan plugin_only = plan_of(tree, {{"LD_LIBRARY_PATH", "/opt/amazon/ofi-nccl/lib"}});
  CHECK(check(plugin_only, "libfabric").status == CheckStatus::pass);
  CHECK_THAT(check(plugin_only, "libfabric").detail,
             Catch::Contains("/opt/amazon/efa/lib/libfabric.so.1 (→ libfabric.so.1.26.0) via RUNPATH of " + k_plugin));
}

TEST_CASE("NCCL_NET_PLUGIN names a custom suffix, or a path", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  tree.lib("/opt/custom/lib/libnccl-net-custom.so", "libnccl-net-custom.so", "a custom plugin",
           "-L\"$T\"/opt/amazon/efa/lib -l:libfabric.so.1 -Wl,--enable-new-dtags,-rpath,/opt/amazon/efa/lib");
  const Plan suffix = plan_of(tree, {{"NCCL_NET_PLUGIN", "custom"}, {"LD_LIBRARY_PATH", "/opt/custom/lib"}});
  CHECK(check(suffix, "nccl-net-plugin").detail ==
        "libnccl-net-custom.so → /opt/custom/lib/libnccl-net-custom.so via LD_LIBRARY_PATH, version not embedded; the "
        "5 libraries it loads all resolve");
  CHECK(check(suffix, "aws-ofi-nccl").status == CheckStatus::pass);
  CHECK_THAT(check(suffix, "aws-ofi-nccl").detail, Catch::StartsWith("no \"NET/OFI Initializing aws-ofi-nccl\" string"));

  const Plan path = plan_of(tree, {{"NCCL_NET_PLUGIN", "/opt/custom/lib/libnccl-net-custom.so"}});
  CHECK_THAT(check(path, "nccl-net-plugin").detail,
             Catch::StartsWith("/opt/custom/lib/libnccl-net-custom.so → /opt/custom/lib/libnccl-net-custom.so via path"));

  const Plan missing = plan_of(tree, {{"NCCL_NET_PLUGIN", "nope"}});
  CHECK(check(missing, "nccl-net-plugin").status == CheckStatus::fail);
  CHECK_THAT(check(missing, "nccl-net-plugin").detail,
             Catch::StartsWith("NCCL_NET_PLUGIN=nope: NCCL would load nope, then libnccl-net-nope.so: not found in"));

  const Plan none = plan_of(tree, {{"NCCL_NET_PLUGIN", "none"}});
  CHECK(check(none, "nccl-net-plugin").status == CheckStatus::warn);
}

TEST_CASE("the plugin under another name or directory: the fix says which setting", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  tree.sh("rm opt/amazon/ofi-nccl/lib/libnccl-net.so");  // --disable-nccl-net-symlink
  // The user's NCCL_NET_PLUGIN wins, even a wrong one; the fix names the one that works.
  const Plan wrong = plan_of(tree, {{"NCCL_NET_PLUGIN", "net"}});
  CHECK(check(wrong, "nccl-net-plugin").status == CheckStatus::fail);
  CHECK_THAT(check(wrong, "nccl-net-plugin").detail,
             Catch::EndsWith("; /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so exists"));
  CHECK(check(wrong, "nccl-net-plugin").fix ==
        "set NCCL_NET_PLUGIN=ofi: aws-ofi-nccl ≥ 1.15 names its plugin libnccl-net-ofi.so (RELEASENOTES v1.15.0)");
  CHECK(check(plan_of(tree, {{"NCCL_NET_PLUGIN", "ofi"}}), "nccl-net-plugin").status == CheckStatus::pass);

  const Plan elsewhere = plan_of(tree, {{"LD_LIBRARY_PATH", "/opt/amazon/efa/lib"}});
  CHECK(check(elsewhere, "nccl-net-plugin").fix ==
        "add /opt/amazon/ofi-nccl/lib to LD_LIBRARY_PATH (left unset, raylaunch sets it to the EFA directories that "
        "exist)");
}

namespace {

const EnvVar* env_var(const Plan& plan, const std::string& name) { return fixtures::env_var(plan.env, name); }

}  // namespace

TEST_CASE("only libnccl-net-ofi.so on the search path: raylaunch sets NCCL_NET_PLUGIN=ofi and the plugin loads",
          "[fabric][checks][ofi]") {
  const ImageTree tree("p4de-ofi");
  tree.sh("rm opt/amazon/ofi-nccl/lib/libnccl-net.so");  // the link a multi-stage build lost
  const Plan plan = plan_of(tree);
  const EnvVar* var = env_var(plan, "NCCL_NET_PLUGIN");
  REQUIRE(var != nullptr);
  CHECK(var->value == "ofi");
  CHECK(var->origin == Origin::raylaunch);
  CHECK(var->reason ==
        "only /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so is on the linker's search path, no libnccl-net.so link (a "
        "multi-stage build or --disable-nccl-net-symlink leaves it out): NCCL loads libnccl-net-ofi.so by this name "
        "(NCCL plugin_open.cc; aws-ofi-nccl RELEASENOTES v1.15.0)");
  // Judged as NCCL will load it: the second candidate of NCCL_NET_PLUGIN=ofi.
  CHECK(check(plan, "nccl-net-plugin").status == CheckStatus::pass);
  CHECK(check(plan, "nccl-net-plugin").detail ==
        "libnccl-net-ofi.so → /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so via LD_LIBRARY_PATH, aws-ofi-nccl 1.16.3; "
        "the 6 libraries it loads all resolve");
  CHECK(plan.exit_code() == 0);
  CHECK(plan.child_env({}).at("NCCL_NET_PLUGIN") == "ofi");
  // It comes with the fabric variables, before the ones that describe the plan.
  std::vector<std::string> names;
  for (const EnvVar& v : plan.env) {
    names.push_back(v.name);
  }
  const auto at = std::find(names.begin(), names.end(), "NCCL_NET_PLUGIN");
  CHECK(*std::prev(at) == "NCCL_NET");
}

TEST_CASE("NCCL_NET_PLUGIN=ofi only where it is the one fix: never over the user's, never without reading",
          "[fabric][checks][ofi]") {
  const ImageTree tree("p4de-ofi");
  CHECK(env_var(plan_of(tree), "NCCL_NET_PLUGIN") == nullptr);  // libnccl-net.so is there
  tree.sh("rm opt/amazon/ofi-nccl/lib/libnccl-net.so");
  const Plan user = plan_of(tree, {{"NCCL_NET_PLUGIN", "ofi"}});
  REQUIRE(env_var(user, "NCCL_NET_PLUGIN") == nullptr);  // the user's value is inherited, not managed
  CHECK(user.child_env({{"NCCL_NET_PLUGIN", "ofi"}}).at("NCCL_NET_PLUGIN") == "ofi");
  CHECK(env_var(plan_of(tree, {}, {{"checks", "off"}}), "NCCL_NET_PLUGIN") == nullptr);  // nothing read
  // The plugin's directory off the search path: naming it would not help; the fix says so.
  const Plan off_path = plan_of(tree, {{"LD_LIBRARY_PATH", "/opt/amazon/efa/lib"}});
  CHECK(env_var(off_path, "NCCL_NET_PLUGIN") == nullptr);
  CHECK_THAT(check(off_path, "nccl-net-plugin").fix, Catch::StartsWith("add /opt/amazon/ofi-nccl/lib to LD_LIBRARY_PATH"));
  // A libnccl-net.so that is there but broken is reported, not routed around.
  tree.sh("ln -s loop.so opt/amazon/ofi-nccl/lib/libnccl-net.so && ln -s libnccl-net.so opt/amazon/ofi-nccl/lib/loop.so");
  const Plan loop = plan_of(tree);
  CHECK(env_var(loop, "NCCL_NET_PLUGIN") == nullptr);
  CHECK(check(loop, "nccl-net-plugin").status == CheckStatus::warn);
}

TEST_CASE("no EFA devices: no fabric check, and the image is not read", "[fabric][checks]") {
  const ImageTree tree("g5-noefa");
  tree.sh("bash " + fabric_fixtures::quote(ImageTree::script("fabric/make-efa-image")) + " \"$T\"");
  int probes = 0;
  PodFacts f = facts_of(tree, {}, {});
  f.node.probe_fabric = [&](const EnvMap&) {
    ++probes;
    return FabricFacts{};
  };
  const Plan plan = make_plan(
      fixtures::config({{"host_root", tree.path()}, {"hostname", "training-1"}, {"nodes", "4"}, {"namespace", "ml"}}),
      f, {});
  for (const char* name : {"efa-provider", "nccl-net-plugin", "libfabric", "nccl", "aws-ofi-nccl", "gdr"}) {
    CHECK(find(plan, name) == nullptr);
  }
  CHECK(probes == 0);
  CHECK(fabric_checks(f.node, FabricFacts{}, {}, 4).empty());
}

TEST_CASE("a symlink loop and a truncated ELF file: a clear warning, no crash, no hang", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  tree.sh("cd opt/amazon/efa/lib && rm libfabric.so.1 && ln -s loop.so libfabric.so.1 && ln -s libfabric.so.1 loop.so");
  const Plan loop = plan_of(tree);
  const Check plugin = check(loop, "nccl-net-plugin");
  CHECK(plugin.status == CheckStatus::warn);
  CHECK_THAT(plugin.detail, Catch::Contains("libfabric.so.1 (needed by " + k_plugin +
                                            ") is unusable: /opt/amazon/efa/lib/libfabric.so.1: symlink loop"));
  CHECK_THAT(plugin.fix, Catch::StartsWith("replace libfabric.so.1 with a complete copy"));
  CHECK(check(loop, "libfabric").status == CheckStatus::warn);
  CHECK(loop.exit_code() == 0);

  const ImageTree cut("p4de-ofi");
  cut.sh("truncate -s 100 usr/lib/x86_64-linux-gnu/libhwloc.so.15.6.4");
  const Check truncated = check(plan_of(cut), "nccl-net-plugin");
  CHECK(truncated.status == CheckStatus::warn);
  CHECK_THAT(truncated.detail,
             Catch::Contains("libhwloc.so.15 (needed by " + k_plugin + ") is unusable: "
                             "/usr/lib/x86_64-linux-gnu/libhwloc.so.15: file too short"));
}

TEST_CASE("mlx5 verbs devices beside EFA ones fail a multi-node pod under strict", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  add_mlx5(tree);
  const Plan plan = plan_of(tree);
  const Check c = check(plan, "efa-provider");
  CHECK(c.status == CheckStatus::fail);
  CHECK_THAT(c.detail, Catch::StartsWith("non-EFA verbs devices beside the EFA ones: mlx5_0 (mlx5_core);"));
  CHECK_THAT(c.fix, Catch::StartsWith("remove the /dev/infiniband hostPath mount"));
  CHECK(plan.exit_code() == 78);
  CHECK(plan_of(tree, {}, {{"checks", "warn"}}).exit_code() == 0);
  CHECK(check(plan_of(tree, {}, {{"nodes", "1"}, {"hostname", "training-0"}}), "efa-provider").status ==
        CheckStatus::warn);
}

TEST_CASE("GPUDirect RDMA per instance type and node", "[fabric][checks][gdr]") {
  SECTION("p5 through dma-buf: kernel 6.1 and the open driver") {
    const ImageTree tree("p5-ofi");
    const Check c = check(plan_of(tree), "gdr");
    CHECK(c.status == CheckStatus::pass);
    CHECK(c.detail == "p5.48xlarge: dma-buf (kernel 6.1.112-124.190.amzn2023.x86_64 ≥ 5.12, NVIDIA open kernel "
                      "module 570.172.08; inference: CUDA exports dma-bufs with the open module)");
    const Check off = check(plan_of(tree, {{"FI_HMEM_CUDA_USE_DMABUF", "0"}}), "gdr");
    CHECK(off.status == CheckStatus::warn);
    CHECK_THAT(off.detail, Catch::Contains("dma-buf disabled by FI_HMEM_CUDA_USE_DMABUF"));
  }
  SECTION("p5 without any: warned, with the fix") {
    const ImageTree tree("p5-ofi");
    tree.sh("echo 5.10.230-223.885.amzn2.x86_64 > proc/sys/kernel/osrelease && "
            "echo 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.216.03  Wed Oct 30 2024' > proc/driver/nvidia/version");
    const Check c = check(plan_of(tree), "gdr");
    CHECK(c.status == CheckStatus::warn);
    CHECK(c.detail ==
          "p5.48xlarge: no way for EFA to reach GPU memory found: the EFA driver has no NVIDIA P2P provider (device/p2p "
          "is empty); efa_nv_peermem not loaded; kernel 5.10.230-223.885.amzn2.x86_64 (dma-buf needs 5.12); NVIDIA "
          "proprietary kernel module 535.216.03 (dma-buf needs the open module). NCCL will disable GDR, and aws-ofi-nccl "
          "then refuses EFA on this instance (\"GDR disabled on GDR-supported instance type\"): TCP sockets, or a "
          "failure with NCCL_NET=Libfabric");
    CHECK_THAT(c.fix, Catch::StartsWith("load efa_nv_peermem on the node"));
    tree.sh("mkdir -p sys/module/nvidia_peermem");
    CHECK_THAT(check(plan_of(tree), "gdr").detail, Catch::Contains("nvidia_peermem is loaded, but the EFA driver"));
    tree.sh("mkdir -p sys/module/efa_nv_peermem");
    CHECK(check(plan_of(tree), "gdr").status == CheckStatus::pass);
  }
  SECTION("an EFA driver before device/p2p: device/gdr") {
    const ImageTree tree("p5-ofi");
    tree.sh("echo 5.10.230 > proc/sys/kernel/osrelease && for d in sys/class/infiniband/rdmap*/device; do "
            "rm $d/p2p; echo 1 > $d/gdr; done");
    CHECK(check(plan_of(tree), "gdr").status == CheckStatus::pass);
    tree.sh("for d in sys/class/infiniband/rdmap*/device; do echo 0 > $d/gdr; done");
    CHECK_THAT(check(plan_of(tree), "gdr").detail, Catch::Contains("no GPUDirect support (device/gdr = 0)"));
  }
  SECTION("instances aws-ofi-nccl does not require it on, and pods without GPUs") {
    const ImageTree tree("p4de-ofi");
    tree.sh("echo g6.8xlarge > sys/devices/virtual/dmi/id/product_name && rm -r sys/module/efa_nv_peermem");
    CHECK(check(plan_of(tree, {}, {{"efa", "4"}, {"gpus", "8"}}), "gdr").detail ==
          "g6.8xlarge: aws-ofi-nccl does not require GPUDirect RDMA here; not checked");
    tree.sh("echo p4de.24xlarge > sys/devices/virtual/dmi/id/product_name && rm dev/nvidia[0-9]* && "
            "rm -r proc/driver/nvidia/gpus");
    CHECK(check(plan_of(tree), "gdr").detail == "p4de.24xlarge: no GPUs in this pod; not checked");
  }
}

TEST_CASE("aws-ofi-nccl's GDR-required table", "[fabric][gdr]") {
  for (const char* yes : {"p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
                          "p6-b200.48xlarge", "p6-b300.48xlarge", "p6e-gb200.36xlarge", "p10.48xlarge"}) {
    CHECK(gdr_required(yes));
  }
  for (const char* no : {"p5.4xlarge", "p3dn.24xlarge", "p4d.2xlarge", "g5.48xlarge", "g6.8xlarge", "trn1.32xlarge", ""}) {
    CHECK_FALSE(gdr_required(no));
  }
}

TEST_CASE("NCCL's version: from the file name, the embedded string, LD_PRELOAD or the venv", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  tree.lib("/usr/lib/x86_64-linux-gnu/libnccl.so.2.16.5", "libnccl.so.2", "NCCL version 2.16.5+cuda11.8");
  tree.sh("ln -sfn libnccl.so.2.16.5 usr/lib/x86_64-linux-gnu/libnccl.so.2");
  const Check old = check(plan_of(tree), "nccl");
  CHECK(old.status == CheckStatus::warn);
  CHECK_THAT(old.detail, Catch::EndsWith("NCCL 2.16.5 (file name libnccl.so.2.16.5); aws-ofi-nccl 1.16.3 supports "
                                         "NCCL 2.17.1 and later (its RELEASENOTES)"));
  CHECK(old.fix == "use NCCL 2.17.1 or later, or an aws-ofi-nccl release that supports NCCL 2.16.5");

  tree.lib("/opt/nccl/build/lib/libnccl.so", "libnccl.so.2", "NCCL version 2.21.5+cuda12.4");
  const Check preloaded = check(plan_of(tree, {{"LD_PRELOAD", "/opt/nccl/build/lib/libnccl.so"}}), "nccl");
  CHECK(preloaded.status == CheckStatus::pass);
  CHECK(preloaded.detail == "libnccl.so.2 → /opt/nccl/build/lib/libnccl.so via LD_PRELOAD, NCCL 2.21.5+cuda12.4 "
                            "(embedded string)");

  tree.sh("rm usr/lib/x86_64-linux-gnu/libnccl.so* && mkdir -p opt/venv/bin");
  tree.lib("/opt/venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2", "libnccl.so.2",
           "NCCL version 2.27.3+cuda12.9");
  const Plan venv = plan_of(tree, {}, {{"venv", tree.path() + "/opt/venv"}});
  // VIRTUAL_ENV is the machine's path; only a path under the image root is read.
  CHECK_THAT(check(venv, "nccl").detail, Catch::StartsWith("no libnccl.so.2 in LD_PRELOAD"));
  const Plan in_root = plan_of(tree, {{"VIRTUAL_ENV", "/opt/venv"}});
  CHECK(check(in_root, "nccl").detail ==
        "libnccl.so.2 → /opt/venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2 via the venv's "
        "nvidia-nccl wheel, NCCL 2.27.3+cuda12.9 (embedded string)");
  // The wheel's .dist-info names the version: no scan needed.
  tree.sh("mkdir -p opt/venv/lib/python3.11/site-packages/nvidia_nccl_cu12-2.27.3.dist-info");
  CHECK_THAT(check(plan_of(tree, {{"VIRTUAL_ENV", "/opt/venv"}}), "nccl").detail,
             Catch::EndsWith("NCCL 2.27.3 (nvidia_nccl_cu12-2.27.3.dist-info)"));
}

TEST_CASE("settings tied to aws-ofi-nccl version ranges", "[fabric][checks]") {
  const ImageTree tree("p4de-ofi");
  const Check proto = check(plan_of(tree, {{"NCCL_PROTO", "simple"}}), "aws-ofi-nccl");
  CHECK(proto.status == CheckStatus::warn);
  CHECK(proto.detail == "1.16.3 with NCCL_PROTO=simple: the plugin's tuner can segfault when these are set, fixed in "
                        "1.20.0 (RELEASENOTES)");
  tree.lib("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so", "libnccl-net-ofi.so", "NET/OFI Initializing aws-ofi-nccl 1.21.1",
           "-L\"$T\"/opt/amazon/efa/lib -L\"$T\"/usr/lib/x86_64-linux-gnu -l:libfabric.so.1 -l:libhwloc.so.15 "
           "-Wl,--enable-new-dtags,-rpath,/opt/amazon/efa/lib");
  CHECK(check(plan_of(tree, {{"NCCL_ALGO", "ring"}}), "aws-ofi-nccl").status == CheckStatus::pass);
  tree.lib("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so", "libnccl-net-ofi.so", "NET/OFI Initializing aws-ofi-nccl 1.4.0",
           "-L\"$T\"/opt/amazon/efa/lib -L\"$T\"/usr/lib/x86_64-linux-gnu -l:libfabric.so.1 -l:libhwloc.so.15 "
           "-Wl,--enable-new-dtags,-rpath,/opt/amazon/efa/lib");
  const Plan old = plan_of(tree);
  CHECK(check(old, "aws-ofi-nccl").status == CheckStatus::warn);
  CHECK(check(old, "nccl").status == CheckStatus::pass);  // 1.4.0 supports NCCL 2.4.8 and later
  CHECK_THAT(check(old, "gdr").detail, Catch::StartsWith("p4de.24xlarge: the EFA driver reaches GPU memory"));
}

TEST_CASE("the plan's text and JSON show the fabric checks", "[fabric][checks][render]") {
  const ImageTree tree("p4de-ofi");
  const Plan plan = plan_of(tree);
  const std::string text = render_plan_text(plan);
  CHECK_THAT(text, Catch::Contains("  pass  nccl-net-plugin        libnccl-net.so → " + k_plugin +
                                   " (→ libnccl-net-ofi.so) via LD_LIBRARY_PATH, aws-ofi-nccl 1.16.3;"));
  CHECK_THAT(text, Catch::Contains("  pass  nccl                   libnccl.so.2 → /usr/lib/x86_64-linux-gnu/libnccl.so.2"));
  CHECK_THAT(text, Catch::Contains("  pass  gdr                    p4de.24xlarge: the EFA driver reaches GPU memory"));

  const auto doc = launcher::util::Json::parse(render_plan_json(plan));
  std::map<std::string, std::string> status;
  for (const auto& c : doc["checks"]) {
    status[c["name"].get<std::string>()] = c["status"].get<std::string>();
  }
  for (const char* name : {"efa-provider", "nccl-net-plugin", "libfabric", "nccl", "aws-ofi-nccl", "gdr"}) {
    CHECK(status[name] == "pass");
  }

  const ImageTree broken("p4de");
  const std::string failing = render_plan_text(plan_of(broken));
  CHECK_THAT(failing, Catch::Contains("  FAIL  nccl-net-plugin        NCCL_NET_PLUGIN unset: NCCL would load libnccl-net.so"));
  CHECK_THAT(failing, Catch::Contains("        fix: install aws-ofi-nccl"));
  CHECK_THAT(failing, Catch::Contains("exit code: 78"));
}

TEST_CASE("NCCL's plugin candidates for each NCCL_NET_PLUGIN", "[fabric]") {
  using V = std::vector<std::string>;
  CHECK(nccl_plugin_candidates(false, "") == V{"libnccl-net.so"});
  CHECK(nccl_plugin_candidates(true, "ofi") == V{"ofi", "libnccl-net-ofi.so"});
  CHECK(nccl_plugin_candidates(true, "NONE").empty());
  CHECK(nccl_plugin_candidates(true, "/opt/x/libp.so") == V{"/opt/x/libp.so"});
  CHECK(nccl_plugin_candidates(true, "libnccl-net-aws-ofi.so") == V{"libnccl-net-aws-ofi.so"});
  CHECK(nccl_plugin_candidates(true, "ofi,,custom") == V{"ofi", "libnccl-net-ofi.so", "custom", "libnccl-net-custom.so"});
}
