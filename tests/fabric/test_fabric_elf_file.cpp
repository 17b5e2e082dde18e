#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "../fabric/image_tree.hpp"
#include "fabric/elf_file.hpp"
#include "util/host_fs.hpp"

using namespace launcher::fabric;
using fabric_fixtures::ImageTree;

namespace {

ElfInfo info_of(const ImageRoot& root, const std::string& path) {
  auto file = root.open(path);
  REQUIRE(file);
  auto info = read_elf_info(*file);
  INFO(path << ": " << (info ? "" : info.error().why));
  REQUIRE(info);
  return *info;
}

ElfError error_of(const ImageRoot& root, const std::string& path) {
  auto file = root.open(path);
  REQUIRE(file);
  auto info = read_elf_info(*file);
  REQUIRE_FALSE(info);
  return info.error();
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// A 64-byte ELF header: class, data, type and program header count as given, nothing else.
std::string elf_header(char cls, char data, std::uint16_t type, std::uint16_t phnum) {
  std::string h(64, '\0');
  h.replace(0, 4, "\x7f" "ELF");
  h[4] = cls;
  h[5] = data;
  h[6] = 1;
  std::memcpy(&h[16], &type, 2);
  const std::uint16_t machine = k_em_x86_64, phentsize = 56;
  std::memcpy(&h[18], &machine, 2);
  const std::uint64_t phoff = 64;
  std::memcpy(&h[32], &phoff, 8);
  std::memcpy(&h[54], &phentsize, 2);
  std::memcpy(&h[56], &phnum, 2);
  return h;
}

}  // namespace

TEST_CASE("the EFA installer's plugin: DT_NEEDED, SONAME and RUNPATH as gcc wrote them", "[fabric][elf]") {
  const ImageTree tree("image");
  const ImageRoot root(tree.path());
  const ElfInfo plugin = info_of(root, "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
  CHECK(plugin.machine == k_em_x86_64);
  CHECK(plugin.soname == "libnccl-net-ofi.so");
  CHECK(plugin.needed == std::vector<std::string>{"libfabric.so.1", "libhwloc.so.15"});
  CHECK(plugin.has_runpath);
  CHECK_FALSE(plugin.has_rpath);
  CHECK(plugin.runpath == std::vector<std::string>{"/opt/amazon/efa/lib"});
  CHECK_FALSE(plugin.nodeflib);

  const ElfInfo fabric = info_of(root, "/opt/amazon/efa/lib/libfabric.so.1");
  CHECK(fabric.needed == std::vector<std::string>{"libefa.so.1", "libibverbs.so.1", "librdmacm.so.1"});
  CHECK_FALSE(fabric.has_runpath);
}

TEST_CASE("DT_RPATH, DT_RUNPATH, several entries and DF_1_NODEFLIB are told apart", "[fabric][elf]") {
  const ImageTree tree("image");
  tree.lib("/opt/t/librpath.so", "librpath.so", "x", "-Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib:/opt/a'");
  tree.lib("/opt/t/libnodef.so", "libnodef.so", "x", "-Wl,-z,nodefaultlib");
  const ImageRoot root(tree.path());
  const ElfInfo rpath = info_of(root, "/opt/t/librpath.so");
  CHECK(rpath.has_rpath);
  CHECK_FALSE(rpath.has_runpath);
  CHECK(rpath.rpath == std::vector<std::string>{"$ORIGIN/../lib", "/opt/a"});
  CHECK(info_of(root, "/opt/t/libnodef.so").nodeflib);
}

TEST_CASE("a truncated, a foreign and a corrupt file: a clear error, no crash", "[fabric][elf]") {
  const ImageTree tree("image");
  tree.sh("mkdir -p opt/bad && head -c 100 usr/lib/x86_64-linux-gnu/libhwloc.so.15 > opt/bad/short.so && "
          "head -c 10 usr/lib/x86_64-linux-gnu/libhwloc.so.15 > opt/bad/tiny.so && echo 'not elf' > opt/bad/text.so");
  write_bytes(tree.path() + "/opt/bad/elf32.so", elf_header(1, 1, 3, 1));
  write_bytes(tree.path() + "/opt/bad/bigendian.so", elf_header(2, 2, 3, 1));
  write_bytes(tree.path() + "/opt/bad/exec.so", elf_header(2, 1, 2, 1));
  write_bytes(tree.path() + "/opt/bad/phnum.so", elf_header(2, 1, 3, 60000));
  write_bytes(tree.path() + "/opt/bad/noph.so", elf_header(2, 1, 3, 3));  // headers past the end
  const ImageRoot root(tree.path());

  CHECK_THAT(error_of(root, "/opt/bad/short.so").why, Catch::StartsWith("file too short"));
  CHECK(error_of(root, "/opt/bad/short.so").problem == ElfProblem::invalid);
  CHECK(error_of(root, "/opt/bad/tiny.so").why == "file too short (10 bytes)");
  CHECK(error_of(root, "/opt/bad/text.so").why == "not an ELF file (invalid ELF header)");
  CHECK(error_of(root, "/opt/bad/elf32.so").problem == ElfProblem::other_class);
  CHECK(error_of(root, "/opt/bad/elf32.so").why == "32-bit ELF");
  CHECK(error_of(root, "/opt/bad/bigendian.so").why == "ELF data encoding is not little-endian");
  CHECK(error_of(root, "/opt/bad/exec.so").why == "not a shared object (ELF type 2)");
  CHECK_THAT(error_of(root, "/opt/bad/phnum.so").why, Catch::StartsWith("malformed program header table"));
  CHECK_THAT(error_of(root, "/opt/bad/noph.so").why, Catch::Contains("lies past its end"));
}

TEST_CASE("a huge file costs no more than a small one: only headers are read", "[fabric][elf]") {
  const ImageTree tree("image");
  // A 4 GiB sparse tail after a real library: nothing past the dynamic section is read.
  tree.sh("cp usr/lib/x86_64-linux-gnu/libnccl.so.2.27.7 opt/huge.so && truncate -s 4G opt/huge.so");
  const ImageRoot root(tree.path());
  CHECK(info_of(root, "/opt/huge.so").soname == "libnccl.so.2");
}

TEST_CASE("find_section locates .rodata, and nothing in a file without sections", "[fabric][elf]") {
  const ImageTree tree("image");
  const ImageRoot root(tree.path());
  auto file = root.open("/usr/lib/x86_64-linux-gnu/libnccl.so.2");
  REQUIRE(file);
  const auto rodata = find_section(*file, ".rodata");
  REQUIRE(rodata);
  const auto bytes = file->read_at(rodata->offset, rodata->size);
  REQUIRE(bytes);
  CHECK_THAT(*bytes, Catch::Contains("NCCL version 2.27.7+cuda12.8"));
  CHECK_FALSE(find_section(*file, ".no-such-section"));

  tree.sh("echo plain text > opt/plain.so");
  auto plain = root.open("/opt/plain.so");
  REQUIRE(plain);
  CHECK_FALSE(find_section(*plain, ".rodata"));
}

TEST_CASE("every header and dynamic-section byte corrupted in turn: an answer, never a crash", "[fabric][elf]") {
  const ImageTree tree("image");
  const std::string path = tree.path() + "/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so";
  const std::string good = launcher::util::read_small_file(path, 64 << 20).value_or("");
  REQUIRE_FALSE(good.empty());
  const ImageRoot healthy(tree.path());
  auto file = healthy.open("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so");
  REQUIRE(file);
  // The ELF and program headers, then the dynamic section and its strings (the last 4 KiB).
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < 64 + 56 * 8 && i < good.size(); ++i) {
    offsets.push_back(i);
  }
  for (std::size_t i = good.size() > 4096 ? good.size() - 4096 : 0; i < good.size(); i += 3) {
    offsets.push_back(i);
  }
  int answered = 0;
  for (const std::size_t at : offsets) {
    for (const char value : {'\xff', '\x00', '\x7f'}) {
      std::string bad = good;
      bad[at] = value;
      write_bytes(path, bad);
      const ImageRoot root(tree.path());
      auto f = root.open("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so");
      REQUIRE(f);
      const auto info = read_elf_info(*f);
      (void)find_section(*f, ".rodata");
      answered += info ? 1 : (info.error().why.empty() ? 0 : 1);
    }
  }
  CHECK(answered == static_cast<int>(offsets.size() * 3));
  write_bytes(path, good);
}
