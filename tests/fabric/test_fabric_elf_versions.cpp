#include <catch2/catch.hpp>

#include <fstream>

#include "../fabric/image_tree.hpp"
#include "fabric/dynamic_linker.hpp"
#include "fabric/elf_versions.hpp"
#include "fabric/version_check.hpp"

using namespace launcher::fabric;
using fabric_fixtures::ImageTree;

namespace {

// A provider "libprov.so.1" defining FABRIC_1.0 … `newest` (as libfabric's own version script
// does, libfabric.map.in), and libuser.so built against the newest one, needing FABRIC_1.7 and
// FABRIC_1.0. All built by the system's gcc with -nostdlib: only the needs a test names.
struct VersionedLibs {
  explicit VersionedLibs(const ImageTree& t) : tree(t) {
    tree.sh(R"SH(mkdir -p src opt/new opt/old opt/app
cat > src/prov.c <<'C'
int f10(void) { return 10; }
int f15(void) { return 15; }
#ifdef NEW
int f17(void) { return 17; }
#endif
C
printf 'FABRIC_1.0 { global: f10; local: *; };\nFABRIC_1.5 { global: f15; } FABRIC_1.0;\n' > src/old.map
cp src/old.map src/new.map
printf 'FABRIC_1.7 { global: f17; } FABRIC_1.5;\n' >> src/new.map
gcc -shared -fPIC -nostdlib -DNEW -o opt/new/libprov.so.1 src/prov.c -Wl,-soname,libprov.so.1 -Wl,--version-script=src/new.map
gcc -shared -fPIC -nostdlib -o opt/old/libprov.so.1 src/prov.c -Wl,-soname,libprov.so.1 -Wl,--version-script=src/old.map
printf 'int f10(void); int f17(void);\nint use(void) { return f10() + f17(); }\n' > src/user.c
gcc -shared -fPIC -nostdlib -o opt/app/libuser.so src/user.c -Wl,-soname,libuser.so -Lopt/new -l:libprov.so.1
)SH");
  }
  LoadReport load(const ImageRoot& root, const std::string& provider_dir) const {
    const DynamicLinker linker(root, LinkerEnv{{provider_dir}, nullptr, "none", host_machine()});
    return linker.dlopen("/opt/app/libuser.so", nullptr);
  }
  const ImageTree& tree;
};

ElfVersions versions_of(const ImageRoot& root, const std::string& path) {
  auto file = root.open(path);
  REQUIRE(file);
  auto v = read_elf_versions(*file);
  INFO(path << ": " << (v ? "" : v.error().why));
  REQUIRE(v);
  return *v;
}

}  // namespace

TEST_CASE("version needs and definitions as gcc and ld wrote them", "[fabric][elf][versions]") {
  const ImageTree tree("image");
  const VersionedLibs libs(tree);
  const ImageRoot root(tree.path());

  const ElfVersions user = versions_of(root, "/opt/app/libuser.so");
  REQUIRE(user.needs.size() == 1);
  CHECK(user.needs[0].file == "libprov.so.1");
  std::vector<std::string> needed = user.needs[0].versions;
  std::sort(needed.begin(), needed.end());
  CHECK(needed == std::vector<std::string>{"FABRIC_1.0", "FABRIC_1.7"});
  CHECK(user.needs[0].weak_versions.empty());
  CHECK_FALSE(user.has_verdef);

  const ElfVersions old_prov = versions_of(root, "/opt/old/libprov.so.1");
  CHECK(old_prov.has_verdef);
  CHECK(old_prov.defines == std::vector<std::string>{"FABRIC_1.0", "FABRIC_1.5"});
  CHECK(old_prov.needs.empty());
}

TEST_CASE("a plugin needing FABRIC_1.7 against a libfabric that defines up to FABRIC_1.5", "[fabric][versions]") {
  const ImageTree tree("image");
  const VersionedLibs libs(tree);
  const ImageRoot root(tree.path());

  const LoadReport old_load = libs.load(root, "/opt/old");
  REQUIRE(old_load.complete());  // every file is found: only the versions tell
  const VersionReport old_report = check_versions(root, old_load);
  CHECK(old_report.unreadable.empty());
  REQUIRE(old_report.missing.size() == 1);
  const MissingVersion& m = old_report.missing.front();
  CHECK(m.version == "FABRIC_1.7");
  CHECK(m.object == "/opt/app/libuser.so");
  CHECK(m.provider == "libprov.so.1");
  CHECK(m.provider_path == "/opt/old/libprov.so.1");
  CHECK(m.newest == "FABRIC_1.5");

  const VersionReport new_report = check_versions(root, libs.load(root, "/opt/new"));
  CHECK(new_report.missing.empty());
  CHECK(new_report.unreadable.empty());
}

TEST_CASE("a provider without version definitions passes, as ld.so only warns", "[fabric][versions]") {
  const ImageTree tree("image");
  const VersionedLibs libs(tree);
  tree.sh("mkdir -p opt/plain && gcc -shared -fPIC -nostdlib -o opt/plain/libprov.so.1 src/prov.c -Wl,-soname,libprov.so.1");
  const ImageRoot root(tree.path());
  const VersionReport r = check_versions(root, libs.load(root, "/opt/plain"));
  CHECK(r.missing.empty());
  CHECK(r.unreadable.empty());
}

TEST_CASE("GLIBC_ versions: a library built on this system needs what its libc defines", "[fabric][versions]") {
  const ImageTree tree("image");
  // A real libc need (the system's gcc and glibc), against the system's real libc.so.6 copied
  // into the tree, then against a libc.so.6 stand-in that defines only GLIBC_2.2.5.
  tree.sh(R"SH(mkdir -p src opt/app opt/libc opt/oldc
printf '#include <string.h>\nunsigned long n(const char *s) { return strlen(s); }\n' > src/c.c
gcc -shared -fPIC -o opt/app/libc-user.so src/c.c -Wl,-soname,libc-user.so
cp "$(gcc -print-file-name=libc.so.6)" opt/libc/libc.so.6
printf 'unsigned long strlen(const char *s) { return 0; }\n' > src/oldc.c
printf 'GLIBC_2.2.5 { global: strlen; local: *; };\n' > src/oldc.map
gcc -shared -fPIC -nostdlib -o opt/oldc/libc.so.6 src/oldc.c -Wl,-soname,libc.so.6 -Wl,--version-script=src/oldc.map
)SH");
  const ImageRoot root(tree.path());
  const ElfVersions user = versions_of(root, "/opt/app/libc-user.so");
  REQUIRE_FALSE(user.needs.empty());
  CHECK(user.needs[0].file == "libc.so.6");
  const ElfVersions libc = versions_of(root, "/opt/libc/libc.so.6");
  CHECK(libc.has_verdef);
  CHECK(libc.defines.size() > 10);

  const auto load = [&](const std::string& dir) {
    const DynamicLinker linker(root, LinkerEnv{{dir}, nullptr, "none", host_machine()});
    return check_versions(root, linker.dlopen("/opt/app/libc-user.so", nullptr));
  };
  CHECK(load("/opt/libc").missing.empty());
  // The real need is GLIBC_2.2.5 on x86-64 (strlen's oldest version there) or GLIBC_2.17 on
  // aarch64: the stand-in passes the first and names the second.
  const VersionReport old_c = load("/opt/oldc");
  for (const MissingVersion& m : old_c.missing) {
    CHECK(m.version.starts_with("GLIBC_"));
    CHECK(m.newest == "GLIBC_2.2.5");
  }
}

TEST_CASE("hostile version tables: truncated and corrupted files never crash, errors say why",
          "[fabric][versions][hostile]") {
  const ImageTree tree("image");
  const VersionedLibs libs(tree);
  const std::string good = fixtures::slurp(tree.path() + "/opt/app/libuser.so");
  REQUIRE(good.size() > 512);
  const ImageRoot root(tree.path(), 100000);  // one open per variant
  std::size_t errors = 0, total = 0;
  const auto try_bytes = [&](const std::string& bytes) {
    std::ofstream(tree.path() + "/opt/app/bad.so", std::ios::binary | std::ios::trunc) << bytes;
    auto file = root.open("/opt/app/bad.so");
    REQUIRE(file);
    auto v = read_elf_versions(*file);
    ++total;
    if (!v) {
      ++errors;
      CHECK_FALSE(v.error().why.empty());
    } else {
      CHECK(v->needs.size() <= k_max_version_entries);
    }
  };
  for (std::size_t cut = 0; cut < good.size(); cut += 97) {
    try_bytes(good.substr(0, cut));
  }
  // Every 4-byte word in turn set to 0xffffffff, then to a small offset: counts, links and
  // string offsets out of range, and links that loop back.
  for (std::size_t at = 0; at + 4 <= good.size() && at < 16384; at += 4) {
    for (const char* word : {"\xff\xff\xff\xff", "\x10\x00\x00\x00"}) {
      std::string bad = good;
      bad.replace(at, 4, word, 4);
      try_bytes(bad);
    }
  }
  CHECK(errors > 0);
  CHECK(errors < total);
}
