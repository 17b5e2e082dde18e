#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fabric/image_root.hpp"
#include "util/result.hpp"

namespace launcher::fabric {

inline constexpr std::uint16_t k_em_x86_64 = 62;    // EM_X86_64
inline constexpr std::uint16_t k_em_aarch64 = 183;  // EM_AARCH64

// What the dynamic linker needs from a shared object: its dynamic section, read from the
// file's program headers the way ld.so reads it (section headers may be stripped).
struct ElfInfo {
  std::uint16_t machine = 0;
  std::string soname;
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> rpath;    // DT_RPATH entries, unexpanded
  std::vector<std::string> runpath;  // DT_RUNPATH entries, unexpanded
  bool has_rpath = false;
  bool has_runpath = false;
  bool nodeflib = false;             // DF_1_NODEFLIB: no ld.so.cache, no default directories
};

// `other_class`: a valid ELF file for another machine or word size; ld.so passes over it and
// keeps searching. `invalid`: ld.so stops with an error ("file too short", "invalid ELF header").
enum class ElfProblem { other_class, invalid };

struct ElfError {
  ElfProblem problem = ElfProblem::invalid;
  std::string why;
};

// Reads ELF64 little-endian shared objects (x86-64, aarch64). Reads at most a few hundred KiB
// whatever the file's size, and never trusts an offset or a count from the file.
util::Result<ElfInfo, ElfError> read_elf_info(const RootedFile& file);

struct FileRange {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// The file range of section `name` (".rodata"); nullopt when the file has no section headers,
// no such section, or the section holds no file bytes.
std::optional<FileRange> find_section(const RootedFile& file, std::string_view name);

std::string machine_name(std::uint16_t machine);

// The raw dynamic section and the PT_LOAD segments that map addresses to file offsets: what
// readers of other dynamic tables (elf_versions) start from. Same bounds as read_elf_info.
struct DynamicSection {
  struct Load {
    std::uint64_t offset = 0, vaddr = 0, filesz = 0;
  };
  std::uint16_t machine = 0;
  std::vector<std::pair<std::int64_t, std::uint64_t>> entries;  // (d_tag, d_val), up to DT_NULL
  std::vector<Load> loads;

  std::optional<std::uint64_t> file_offset(std::uint64_t vaddr) const;
  std::optional<std::uint64_t> value(std::int64_t tag) const;  // the first entry with `tag`
};
util::Result<DynamicSection, ElfError> read_dynamic_section(const RootedFile& file);

// Reads exactly `len` bytes at `offset`, or an `invalid` error naming `what`.
util::Result<std::string, ElfError> read_exact(const RootedFile& file, std::uint64_t offset, std::uint64_t len,
                                               const char* what);  // "x86-64", "aarch64", "machine 40"

}  // namespace launcher::fabric
