#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

std::string machine_name(std::uint16_t machine);  // "x86-64", "aarch64", "machine 40"

}  // namespace launcher::fabric
