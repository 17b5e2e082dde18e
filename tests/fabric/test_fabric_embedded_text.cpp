#include <catch2/catch.hpp>

#include <fstream>

#include "../fabric/image_tree.hpp"
#include "fabric/embedded_text.hpp"

using namespace launcher::fabric;
using fabric_fixtures::ImageTree;

namespace {

std::optional<std::string> word(const ImageRoot& root, const std::string& path, std::string_view marker,
                                std::size_t max = 64 << 20) {
  auto file = root.open(path);
  REQUIRE(file);
  return find_tagged_word(*file, ".rodata", marker, max);
}

}  // namespace

TEST_CASE("the aws-ofi-nccl and NCCL version strings, from .rodata", "[fabric][version]") {
  const ImageTree tree("image");
  const ImageRoot root(tree.path());
  CHECK(word(root, "/opt/amazon/ofi-nccl/lib/libnccl-net.so", "NET/OFI Initializing aws-ofi-nccl ") == "1.16.3");
  CHECK(word(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2", "NCCL version ") == "2.27.7+cuda12.8");
  CHECK_FALSE(word(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2", "NET/OFI Initializing aws-ofi-nccl "));
  tree.lib("/opt/old/libnccl-net.so", "libnccl-net.so", "NET/OFI Initializing aws-ofi-nccl 1.13.2-aws");
  CHECK(word(root, "/opt/old/libnccl-net.so", "NET/OFI Initializing aws-ofi-nccl ") == "1.13.2-aws");
}

TEST_CASE("a marker across a 1 MiB chunk boundary is found, none past the limit", "[fabric][version]") {
  const ImageTree tree("image");
  // No section headers: the file is scanned from its start, in reads of 1 MiB plus an overlap
  // of the marker and 64 bytes; the first pad puts the marker across the first read's end.
  for (std::size_t pad : {std::size_t{(1 << 20) + 72}, std::size_t{(1 << 20) - 5}, std::size_t{3 << 20}}) {
    std::ofstream(tree.path() + "/blob") << std::string(pad, 'x') << "NCCL version 2.18.3+cuda12.2" << '\0';
    const ImageRoot root(tree.path());
    CHECK(word(root, "/blob", "NCCL version ") == "2.18.3+cuda12.2");
    CHECK_FALSE(word(root, "/blob", "NCCL version ", pad - 1));
  }
}

TEST_CASE("versions in file names, and ordering of dotted versions", "[fabric][version]") {
  CHECK(version_in_file_name("libnccl.so.2.27.7", "libnccl.so.") == "2.27.7");
  CHECK_FALSE(version_in_file_name("libnccl.so.2", "libnccl.so."));
  CHECK_FALSE(version_in_file_name("libnccl-net.so", "libnccl.so."));
  CHECK(compare_versions("1.13.2-aws", "1.16.0") < 0);
  CHECK(compare_versions("1.16.3", "1.10.0") > 0);
  CHECK(compare_versions("2.17.1", "2.17.1") == 0);
  CHECK(compare_versions("2.17", "2.17.0") == 0);
  CHECK(compare_versions("6.1.112-124.190.amzn2023.x86_64", "5.12") > 0);
  CHECK(compare_versions("5.10.230-223.885.amzn2.x86_64", "5.12") < 0);
  CHECK(compare_versions("git-abc1234", "1.0") < 0);
}
