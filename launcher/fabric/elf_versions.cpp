// Symbol-version tables of a shared object. Layouts (Elf64_Verneed/Vernaux/Verdef/Verdaux,
// VER_FLG_BASE, VER_FLG_WEAK) from <elf.h> and the LSB "Symbol Versioning" chapter; how ld.so
// uses them from glibc elf/dl-version.c (_dl_check_map_versions, match_symbol).
#include "fabric/elf_versions.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "fabric/failure.hpp"

namespace launcher::fabric {

namespace {

constexpr std::int64_t k_dt_strtab = 5, k_dt_strsz = 10, k_dt_verdef = 0x6ffffffc, k_dt_verdefnum = 0x6ffffffd,
                       k_dt_verneed = 0x6ffffffe, k_dt_verneednum = 0x6fffffff;
constexpr std::size_t k_verneed_size = 16, k_vernaux_size = 16, k_verdef_size = 20, k_verdaux_size = 8;
constexpr std::uint16_t k_ver_flg_base = 1, k_ver_flg_weak = 2;
constexpr std::uint64_t k_max_strtab = 4 * 1024 * 1024;
// A version table is a few KiB (libc.so.6's .gnu.version_d: ~2 KiB); reading this much from
// its start covers any real one and bounds a hostile one.
constexpr std::uint64_t k_max_table = 256 * 1024;

Failure<ElfError> invalid(std::string why) { return {ElfError{ElfProblem::invalid, std::move(why)}}; }

template <typename T>
std::optional<T> field(const std::string& bytes, std::uint64_t at) {
  if (at > bytes.size() || sizeof(T) > bytes.size() - at) {
    return std::nullopt;
  }
  T v{};
  std::memcpy(&v, bytes.data() + at, sizeof v);  // little-endian host, little-endian file
  return v;
}

// The bytes of a version table at `vaddr`: from its start to the end of the file or k_max_table.
util::Result<std::string, ElfError> table_at(const RootedFile& f, const DynamicSection& d, std::uint64_t vaddr,
                                             const char* what) {
  const auto at = d.file_offset(vaddr);
  if (!at || *at >= f.size()) {
    return invalid(std::string(what) + " at an address no segment maps");
  }
  return read_exact(f, *at, std::min<std::uint64_t>(f.size() - *at, k_max_table), what);
}

struct Strings {
  std::string text;
  std::optional<std::string> at(std::uint64_t offset) const {
    const std::size_t end = offset < text.size() ? text.find('\0', offset) : std::string::npos;
    if (end == std::string::npos) {
      return std::nullopt;
    }
    return text.substr(offset, end - offset);
  }
};

// Walks a chain of records linked by relative offsets (vn_next, vna_next, vd_next, vda_next),
// at most `count` of them, each wholly inside `bytes` (links only go forward, so a chain ends); `visit(at)` reads one and returns its
// next link or nullopt to stop with an error.
template <typename Visit>
std::optional<std::string> walk(const std::string& bytes, std::uint64_t start, std::uint64_t count,
                                std::size_t size, const char* what, Visit visit) {
  std::uint64_t at = start;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (at > bytes.size() || size > bytes.size() - at) {
      return std::string(what) + " entry " + std::to_string(i) + " lies outside its table";
    }
    const std::optional<std::uint32_t> next = visit(at);
    if (!next) {
      return std::string(what) + " entry " + std::to_string(i) +
             " is malformed (a name outside the string table, or more than " +
             std::to_string(k_max_version_entries) + " versions)";
    }
    if (*next == 0) {
      return std::nullopt;  // the chain's end; ld.so stops here too, whatever the count says
    }
    at += *next;
  }
  return std::nullopt;
}

std::optional<std::string> read_needs(const std::string& t, std::uint64_t count, const Strings& str,
                                      ElfVersions& out) {
  std::size_t seen = 0;  // versions over all needs: their chains may share records
  return walk(t, 0, count, k_verneed_size, "version need", [&](std::uint64_t at) -> std::optional<std::uint32_t> {
    const auto cnt = field<std::uint16_t>(t, at + 2);
    const auto file = str.at(*field<std::uint32_t>(t, at + 4));
    if (!file || !cnt) {
      return std::nullopt;
    }
    VersionNeed need{*file, {}, {}};
    const std::optional<std::string> bad =
        walk(t, at + *field<std::uint32_t>(t, at + 8), *cnt, k_vernaux_size, "version need",
             [&](std::uint64_t aux) -> std::optional<std::uint32_t> {
               const auto name = str.at(*field<std::uint32_t>(t, aux + 8));
               if (!name || ++seen > k_max_version_entries) {
                 return std::nullopt;
               }
               const bool weak = (*field<std::uint16_t>(t, aux + 4) & k_ver_flg_weak) != 0;
               (weak ? need.weak_versions : need.versions).push_back(*name);
               return *field<std::uint32_t>(t, aux + 12);
             });
    if (bad) {
      return std::nullopt;
    }
    out.needs.push_back(std::move(need));
    return *field<std::uint32_t>(t, at + 12);
  });
}

std::optional<std::string> read_defines(const std::string& t, std::uint64_t count, const Strings& str,
                                        ElfVersions& out) {
  return walk(t, 0, count, k_verdef_size, "version definition", [&](std::uint64_t at) -> std::optional<std::uint32_t> {
    const std::uint16_t flags = *field<std::uint16_t>(t, at + 2);
    // The first Verdaux names the version; any others name its parents (not definitions).
    const std::uint64_t aux = at + *field<std::uint32_t>(t, at + 12);
    const auto name_at = field<std::uint32_t>(t, aux);
    const auto name = name_at ? str.at(*name_at) : std::nullopt;
    if (!name || aux + k_verdaux_size > t.size()) {
      return std::nullopt;
    }
    if ((flags & k_ver_flg_base) == 0) {
      out.defines.push_back(*name);
    }
    return *field<std::uint32_t>(t, at + 16);
  });
}

}  // namespace

util::Result<ElfVersions, ElfError> read_elf_versions(const RootedFile& f) {
  auto d = read_dynamic_section(f);
  if (!d) {
    return Failure{d.error()};
  }
  ElfVersions out;
  const auto verneed = d->value(k_dt_verneed), verdef = d->value(k_dt_verdef);
  out.has_verdef = verdef.has_value();
  if (!verneed && !verdef) {
    return out;
  }
  const auto strtab = d->value(k_dt_strtab), strsz = d->value(k_dt_strsz);
  const auto str_at = strtab ? d->file_offset(*strtab) : std::nullopt;
  if (!str_at || !strsz || *strsz == 0 || *strsz > k_max_strtab) {
    return invalid("malformed dynamic string table");
  }
  auto text = read_exact(f, *str_at, *strsz, "the dynamic string table");
  if (!text) {
    return Failure{text.error()};
  }
  const Strings str{std::move(*text)};
  const auto counted = [&](std::int64_t tag) { return std::min<std::uint64_t>(d->value(tag).value_or(0), k_max_version_entries); };
  if (verneed) {
    auto table = table_at(f, *d, *verneed, "the version needs (.gnu.version_r)");
    if (!table) {
      return Failure{table.error()};
    }
    if (auto bad = read_needs(*table, counted(k_dt_verneednum), str, out)) {
      return invalid(*bad);
    }
  }
  if (verdef) {
    auto table = table_at(f, *d, *verdef, "the version definitions (.gnu.version_d)");
    if (!table) {
      return Failure{table.error()};
    }
    if (auto bad = read_defines(*table, counted(k_dt_verdefnum), str, out)) {
      return invalid(*bad);
    }
  }
  return out;
}

}  // namespace launcher::fabric
