#include <catch2/catch.hpp>

#include "../fabric/image_tree.hpp"
#include "fabric/dynamic_linker.hpp"

using namespace launcher::fabric;
using fabric_fixtures::ImageTree;

namespace {

// A linker over `tree` with `library_path` and the tree's ld.so.cache, as in the process.
struct Linker {
  explicit Linker(const ImageTree& tree, const std::string& library_path = "", std::size_t budget = 2048,
                  LinkerLimits limits = {})
      : root(tree.path(), budget) {
    if (auto c = LdCache::parse(fixtures::slurp(tree.path() + "/etc/ld.so.cache"))) {
      cache = std::move(c).value();
    }
    linker = std::make_unique<DynamicLinker>(
        root, LinkerEnv{split_library_path(library_path), cache ? &*cache : nullptr, "none", k_em_x86_64}, limits);
  }
  ImageRoot root;
  std::optional<LdCache> cache;
  std::unique_ptr<DynamicLinker> linker;
};

std::string path_of(const LoadReport& r, const std::string& name) {
  const LoadedObject* o = r.object(name);
  return o != nullptr ? o->path + " via " + o->via : "(not loaded)";
}

}  // namespace

TEST_CASE("the EFA plugin and all it needs, found the way ld.so finds them", "[fabric][linker]") {
  const ImageTree tree("image");
  Linker l(tree, "/opt/amazon/efa/lib:/opt/amazon/ofi-nccl/lib");
  const LoadReport r = l.linker->dlopen("libnccl-net.so", nullptr);
  INFO(r.missing.size() << " missing, " << r.unusable.size() << " unusable, limit " << r.limit);
  REQUIRE(r.complete());
  CHECK(r.objects.size() == 6);
  CHECK(path_of(r, "libnccl-net.so") == "/opt/amazon/ofi-nccl/lib/libnccl-net.so via LD_LIBRARY_PATH");
  CHECK(r.objects.front().real_path == "/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so");
  CHECK(path_of(r, "libfabric.so.1") == "/opt/amazon/efa/lib/libfabric.so.1 via LD_LIBRARY_PATH");
  CHECK(path_of(r, "libhwloc.so.15") == "/usr/lib/x86_64-linux-gnu/libhwloc.so.15 via ld.so.cache");
  CHECK(path_of(r, "libibverbs.so.1") == "/usr/lib/x86_64-linux-gnu/libibverbs.so.1 via ld.so.cache");
  CHECK(r.object("libfabric.so.1")->needed_by == "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
}

TEST_CASE("DT_RUNPATH serves only its own object's needs, DT_RPATH is inherited", "[fabric][linker]") {
  const ImageTree tree("image");
  // libtop needs libmid (in /opt/x); libmid needs libleaf (in /opt/x too) but has no path of its own.
  tree.lib("/opt/x/libleaf.so", "libleaf.so", "leaf");
  tree.lib("/opt/x/libmid.so", "libmid.so", "mid", "-L\"$T\"/opt/x -l:libleaf.so");
  tree.lib("/opt/top/librun.so", "librun.so", "top", "-L\"$T\"/opt/x -l:libmid.so -Wl,--enable-new-dtags,-rpath,/opt/x");
  tree.lib("/opt/top/librpath.so", "librpath.so", "top", "-L\"$T\"/opt/x -l:libmid.so -Wl,--disable-new-dtags,-rpath,/opt/x");
  Linker l(tree);

  const LoadReport run = l.linker->dlopen("/opt/top/librun.so", nullptr);
  CHECK(path_of(run, "libmid.so") == "/opt/x/libmid.so via RUNPATH of /opt/top/librun.so");
  REQUIRE(run.missing.size() == 1);
  const MissingLibrary& leaf = run.missing.front();
  CHECK(leaf.name == "libleaf.so");
  CHECK(leaf.needed_by == "/opt/x/libmid.so");
  // The places named are those ld.so went through for libmid's need: not librun's RUNPATH.
  REQUIRE(leaf.searched.size() == 2);
  CHECK(leaf.searched[0].label == "ld.so.cache");
  CHECK(leaf.searched[1].label == "default directories");
  CHECK(leaf.searched[1].dirs == default_dirs(k_em_x86_64));

  const LoadReport rpath = l.linker->dlopen("/opt/top/librpath.so", nullptr);
  CHECK(rpath.complete());
  CHECK(path_of(rpath, "libleaf.so") == "/opt/x/libleaf.so via RPATH of /opt/top/librpath.so");
}

TEST_CASE("search order: RPATH, LD_LIBRARY_PATH, RUNPATH, cache, default directories", "[fabric][linker]") {
  const ImageTree tree("image");
  for (const char* dir : {"/opt/r", "/opt/ld", "/opt/run", "/usr/lib"}) {
    tree.lib(std::string(dir) + "/libdup.so.1", "libdup.so.1", dir);
  }
  tree.lib("/opt/a/librp.so", "librp.so", "a",
           "-L\"$T\"/opt/r -l:libdup.so.1 -Wl,--disable-new-dtags,-rpath,/opt/r");
  tree.lib("/opt/a/libru.so", "libru.so", "a",
           "-L\"$T\"/opt/r -l:libdup.so.1 -Wl,--enable-new-dtags,-rpath,/opt/run");
  tree.lib("/opt/a/libnone.so", "libnone.so", "a", "-L\"$T\"/opt/r -l:libdup.so.1");

  const Linker with_ld(tree, "/opt/ld");
  CHECK(path_of(with_ld.linker->dlopen("/opt/a/librp.so", nullptr), "libdup.so.1") ==
        "/opt/r/libdup.so.1 via RPATH of /opt/a/librp.so");
  CHECK(path_of(with_ld.linker->dlopen("/opt/a/libru.so", nullptr), "libdup.so.1") ==
        "/opt/ld/libdup.so.1 via LD_LIBRARY_PATH");
  const Linker without(tree);
  CHECK(path_of(without.linker->dlopen("/opt/a/libru.so", nullptr), "libdup.so.1") ==
        "/opt/run/libdup.so.1 via RUNPATH of /opt/a/libru.so");
  CHECK(path_of(without.linker->dlopen("/opt/a/libnone.so", nullptr), "libdup.so.1") ==
        "/usr/lib/libdup.so.1 via default directories");
  tree.sh("echo /opt/ld > etc/ld.so.conf.d/ld.conf");
  tree.ldconfig();
  const Linker cached(tree);
  CHECK(path_of(cached.linker->dlopen("/opt/a/libnone.so", nullptr), "libdup.so.1") ==
        "/opt/ld/libdup.so.1 via ld.so.cache");
}

TEST_CASE("$ORIGIN is the directory the object was found in", "[fabric][linker]") {
  const ImageTree tree("image");
  tree.lib("/opt/pkg/lib/libdep.so", "libdep.so", "dep");
  tree.lib("/opt/pkg/bin/libuser.so", "libuser.so", "user",
           "-L\"$T\"/opt/pkg/lib -l:libdep.so -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'");
  tree.sh("mkdir -p opt/other && ln -s ../pkg/bin/libuser.so opt/other/libuser.so");
  const Linker l(tree);
  // glibc substitutes $ORIGIN and keeps the ".." (elf/dl-load.c _dl_dst_substitute).
  CHECK(path_of(l.linker->dlopen("/opt/pkg/bin/libuser.so", nullptr), "libdep.so") ==
        "/opt/pkg/bin/../lib/libdep.so via RUNPATH of /opt/pkg/bin/libuser.so");
  // Through the symlink, $ORIGIN is /opt/other (glibc takes the name it opened): not found.
  const LoadReport via_link = l.linker->dlopen("/opt/other/libuser.so", nullptr);
  REQUIRE(via_link.missing.size() == 1);
  CHECK(via_link.missing.front().searched.front().dirs == std::vector<std::string>{"/opt/other/../lib"});
}

TEST_CASE("files for another word size are passed over, broken ones end the search", "[fabric][linker]") {
  const ImageTree tree("image");
  tree.lib("/opt/good/libq.so.1", "libq.so.1", "good");
  tree.sh("mkdir -p opt/first && printf '\\177ELF\\001\\001\\001' > opt/first/libq.so.1 && "
          "head -c 64 /dev/zero >> opt/first/libq.so.1");
  const Linker l(tree, "/opt/first:/opt/good");
  const LoadReport r = l.linker->dlopen("libq.so.1", nullptr);
  CHECK(path_of(r, "libq.so.1") == "/opt/good/libq.so.1 via LD_LIBRARY_PATH");
  CHECK(r.skipped == std::vector<std::string>{"/opt/first/libq.so.1: 32-bit ELF"});

  tree.sh("rm opt/first/libq.so.1 && head -c 200 opt/good/libq.so.1 > opt/first/libq.so.1");
  const Linker again(tree, "/opt/first:/opt/good");
  const LoadReport truncated = again.linker->dlopen("libq.so.1", nullptr);
  CHECK_FALSE(truncated.found());
  REQUIRE(truncated.unusable.size() == 1);
  CHECK(truncated.unusable.front().path == "/opt/first/libq.so.1");
  CHECK_THAT(truncated.unusable.front().why, Catch::StartsWith("file too short"));
}

TEST_CASE("a symlink loop, a directory, a FIFO: unusable, named, never a hang", "[fabric][linker]") {
  const ImageTree tree("image");
  tree.sh("cd opt/amazon/efa/lib && rm libfabric.so.1 && ln -s loop.so libfabric.so.1 && ln -s libfabric.so.1 loop.so");
  const Linker l(tree, "/opt/amazon/efa/lib:/opt/amazon/ofi-nccl/lib");
  const LoadReport loop = l.linker->dlopen("libnccl-net.so", nullptr);
  REQUIRE(loop.unusable.size() == 1);
  CHECK(loop.unusable.front().name == "libfabric.so.1");
  CHECK(loop.unusable.front().path == "/opt/amazon/efa/lib/libfabric.so.1");
  CHECK(loop.unusable.front().why == "symlink loop (more than 40 links)");
  CHECK(loop.unusable.front().needed_by == "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
  CHECK(loop.object("libhwloc.so.15") != nullptr);  // the rest is still walked

  // An ImageRoot sees the tree as it first looked at it: a new one for each change.
  tree.sh("cd opt/amazon/efa/lib && rm libfabric.so.1 && mkdir libfabric.so.1");
  const Linker dir(tree, "/opt/amazon/efa/lib");
  CHECK(dir.linker->dlopen("libfabric.so.1", nullptr).unusable.front().why == "is a directory");
  tree.sh("cd opt/amazon/efa/lib && rmdir libfabric.so.1 && mkfifo libfabric.so.1");
  const Linker fifo(tree, "/opt/amazon/efa/lib");
  CHECK(fifo.linker->dlopen("libfabric.so.1", nullptr).unusable.front().why == "not a regular file");
}

TEST_CASE("absolute symlinks resolve inside the image, not on this machine", "[fabric][linker]") {
  const ImageTree tree("image");
  // /usr/lib/x86_64-linux-gnu/libhwloc.so.15 exists here only inside the tree.
  tree.sh("cd opt/amazon/ofi-nccl/lib && ln -sfn /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so libnccl-net.so && "
          "ln -s ../../../../../../../../usr/lib/x86_64-linux-gnu/libhwloc.so.15 libup.so");
  const Linker l(tree, "/opt/amazon/ofi-nccl/lib");
  const LoadReport r = l.linker->dlopen("libnccl-net.so", nullptr);
  CHECK(r.objects.front().real_path == "/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so");
  // ".." never climbs above the root.
  const LoadReport up = l.linker->dlopen("libup.so", nullptr);
  REQUIRE(up.found());
  CHECK(up.objects.front().real_path == "/usr/lib/x86_64-linux-gnu/libhwloc.so.15.6.4");
}

TEST_CASE("DF_1_NODEFLIB skips the cache and the default directories", "[fabric][linker]") {
  const ImageTree tree("image");
  tree.lib("/opt/n/libnodef.so", "libnodef.so", "n",
           "-L\"$T\"/usr/lib/x86_64-linux-gnu -l:libhwloc.so.15 -Wl,-z,nodefaultlib");
  const Linker l(tree);
  const LoadReport r = l.linker->dlopen("/opt/n/libnodef.so", nullptr);
  REQUIRE(r.missing.size() == 1);
  CHECK(r.missing.front().searched.empty());
}

TEST_CASE("dlopen from a caller searches the caller's RUNPATH, as NCCL's dlopen of its plugin does",
          "[fabric][linker]") {
  const ImageTree tree("image");
  tree.lib("/opt/nccl/lib/libnccl.so.2", "libnccl.so.2", "NCCL version 2.27.7",
           "-Wl,--enable-new-dtags,-rpath,/opt/amazon/ofi-nccl/lib");
  const Linker l(tree, "/opt/amazon/efa/lib");
  const LoadReport nccl = l.linker->locate("/opt/nccl/lib/libnccl.so.2", nullptr);
  REQUIRE(nccl.found());
  CHECK(path_of(l.linker->dlopen("libnccl-net.so", &nccl.objects.front()), "libnccl-net.so") ==
        "/opt/amazon/ofi-nccl/lib/libnccl-net.so via RUNPATH of /opt/nccl/lib/libnccl.so.2");
  CHECK_FALSE(l.linker->dlopen("libnccl-net.so", nullptr).found());
}

TEST_CASE("limits: dependency depth, libraries, files opened", "[fabric][linker]") {
  const ImageTree tree("image");
  // A chain lib0 → lib1 → … → lib19 in /opt/chain.
  tree.lib("/opt/chain/lib19.so", "lib19.so", "end");
  for (int i = 18; i >= 0; --i) {
    tree.lib("/opt/chain/lib" + std::to_string(i) + ".so", "lib" + std::to_string(i) + ".so", "link",
             "-L\"$T\"/opt/chain -l:lib" + std::to_string(i + 1) + ".so");
  }
  const Linker deep(tree, "/opt/chain");
  CHECK(deep.linker->dlopen("lib0.so", nullptr).limit == "dependency chain deeper than 16");
  const Linker wide(tree, "/opt/chain", 2048, LinkerLimits{64, 5});
  CHECK(wide.linker->dlopen("lib0.so", nullptr).limit == "more than 5 libraries");
  const Linker few(tree, "/opt/chain", 4);
  const LoadReport r = few.linker->dlopen("lib0.so", nullptr);
  CHECK(r.limit == "more than 4 files looked at");
  CHECK(few.root.opens() == 4);
}

TEST_CASE("LD_LIBRARY_PATH: empty, relative and $ORIGIN entries are left out", "[fabric][linker]") {
  CHECK(split_library_path("/a::b:/c/;./d;$ORIGIN/x:/e") == std::vector<std::string>{"/a", "/c", "/e"});
  CHECK(split_library_path("").empty());
}
