#include <catch2/catch.hpp>
#include <cstring>

#include "../fabric/image_tree.hpp"
#include "fabric/elf_file.hpp"
#include "fabric/ld_cache.hpp"

using namespace launcher::fabric;
using fabric_fixtures::ImageTree;

namespace {

template <typename T>
void put(std::string& b, T v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

TEST_CASE("a cache written by ldconfig -r maps each soname to its path for x86-64", "[fabric][ldcache]") {
  const ImageTree tree("image");
  auto cache = LdCache::parse(fixtures::slurp(tree.path() + "/etc/ld.so.cache"));
  REQUIRE(cache);
  CHECK(cache->size() == 5);
  CHECK(cache->find("libhwloc.so.15", k_em_x86_64) == "/usr/lib/x86_64-linux-gnu/libhwloc.so.15");
  CHECK(cache->find("libnccl.so.2", k_em_x86_64) == "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
  CHECK_FALSE(cache->find("libhwloc.so.15", k_em_aarch64));  // entries carry their machine
  CHECK_FALSE(cache->find("libfabric.so.1", k_em_x86_64));   // /opt/amazon is not in ld.so.conf

  tree.sh("echo /opt/amazon/efa/lib > etc/ld.so.conf.d/efa.conf");
  tree.ldconfig();
  auto with_efa = LdCache::parse(fixtures::slurp(tree.path() + "/etc/ld.so.cache"));
  REQUIRE(with_efa);
  CHECK(with_efa->find("libfabric.so.1", k_em_x86_64) == "/opt/amazon/efa/lib/libfabric.so.1");
}

TEST_CASE("a damaged cache is an error in one line, never a crash", "[fabric][ldcache]") {
  const ImageTree tree("image");
  const std::string good = fixtures::slurp(tree.path() + "/etc/ld.so.cache");
  CHECK(LdCache::parse("").error() == "not an ld.so.cache (unknown magic)");
  CHECK(LdCache::parse("hello, world, this is no cache").error() == "not an ld.so.cache (unknown magic)");
  CHECK(LdCache::parse(good.substr(0, 30)).error() == "truncated header");
  CHECK(LdCache::parse(good.substr(0, 60)).error() == "entry table larger than the file");
  std::string huge = good;
  const std::uint32_t nlibs = 0x7fffffff;
  std::memcpy(huge.data() + 20, &nlibs, 4);
  CHECK(LdCache::parse(huge).error() == "entry table larger than the file");
  std::string dangling = good;
  const std::uint32_t far = 1u << 30;
  std::memcpy(dangling.data() + 48 + 4, &far, 4);  // the first entry's key offset
  CHECK(LdCache::parse(dangling).error() == "entry 0 points outside the file");
}

TEST_CASE("the old ld.so-1.7.0 layout, alone, is read too", "[fabric][ldcache]") {
  // magic[11] + pad, nlibs, then {flags, key, value} with offsets from the string table.
  std::string b = "ld.so-1.7.0";
  b.push_back('\0');
  put<std::uint32_t>(b, 1);
  put<std::int32_t>(b, 0x0303);
  put<std::uint32_t>(b, 0);
  put<std::uint32_t>(b, 10);
  b += std::string("libx.so.1") + '\0' + "/lib/libx.so.1" + '\0';
  auto cache = LdCache::parse(b);
  REQUIRE(cache);
  CHECK(cache->find("libx.so.1", k_em_x86_64) == "/lib/libx.so.1");
}

TEST_CASE("every byte of a cache corrupted in turn: parsed or refused, never a crash", "[fabric][ldcache]") {
  const ImageTree tree("image");
  const std::string good = fixtures::slurp(tree.path() + "/etc/ld.so.cache");
  int parsed = 0, refused = 0;
  for (std::size_t at = 0; at < good.size(); ++at) {
    for (const char value : {'\xff', '\x00', '\x41'}) {
      std::string bad = good;
      bad[at] = value;
      auto cache = LdCache::parse(bad);
      if (cache) {
        (void)cache->find("libhwloc.so.15", k_em_x86_64);
        ++parsed;
      } else {
        CHECK_FALSE(cache.error().empty());
        ++refused;
      }
    }
  }
  CHECK(parsed + refused == static_cast<int>(good.size() * 3));
  CHECK(refused > 0);
}
