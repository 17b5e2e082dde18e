// ELF64 dynamic-section reader. Layouts from the System V gABI (ELF-64 Object File Format)
// and <elf.h>; what ld.so accepts from glibc elf/dl-load.c open_verify().
#include "fabric/elf_file.hpp"

#include <cstring>

#include "fabric/failure.hpp"
#include "util/parse.hpp"

namespace launcher::fabric {

namespace {

constexpr std::size_t k_ehdr_size = 64;
constexpr std::size_t k_phdr_size = 56;
constexpr std::size_t k_shdr_size = 64;
constexpr std::size_t k_dyn_size = 16;
constexpr std::size_t k_max_phnum = 512;
constexpr std::size_t k_max_shnum = 8192;
constexpr std::size_t k_max_dynamic = 64 * 1024;    // a real .dynamic holds a few dozen entries
constexpr std::size_t k_max_strtab = 4 * 1024 * 1024;  // libcudart's .dynstr is ~100 KiB

constexpr std::uint32_t k_pt_load = 1, k_pt_dynamic = 2;
constexpr std::uint16_t k_et_dyn = 3;
constexpr std::int64_t k_dt_null = 0, k_dt_needed = 1, k_dt_strtab = 5, k_dt_strsz = 10, k_dt_soname = 14,
                       k_dt_rpath = 15, k_dt_runpath = 29, k_dt_flags_1 = 0x6ffffffb;
constexpr std::uint64_t k_df_1_nodeflib = 0x800;
constexpr std::uint32_t k_sht_nobits = 8;

template <typename T>
T load(const std::string& bytes, std::size_t at) {
  T v{};
  std::memcpy(&v, bytes.data() + at, sizeof v);  // little-endian host, little-endian file
  return v;
}

Failure<ElfError> invalid(std::string why) { return {ElfError{ElfProblem::invalid, std::move(why)}}; }

struct Segment {
  std::uint32_t type;
  std::uint64_t offset, vaddr, filesz;
};

struct Header {
  std::uint16_t type, machine;
  std::uint64_t phoff, shoff;
  std::uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
};

util::Result<Header, ElfError> read_header(const RootedFile& f) {
  auto ident = f.read_at(0, k_ehdr_size);
  if (!ident) {
    return invalid("cannot read the ELF header");
  }
  const std::string& h = *ident;
  if (h.size() < 4 || std::memcmp(h.data(), "\x7f" "ELF", 4) != 0) {
    return invalid("not an ELF file (invalid ELF header)");
  }
  if (h.size() < 16) {
    return invalid("file too short (" + std::to_string(f.size()) + " bytes)");
  }
  if (h[4] != 2) {  // EI_CLASS: ELFCLASS64
    return Failure{ElfError{ElfProblem::other_class, h[4] == 1 ? "32-bit ELF" : "unknown ELF class"}};
  }
  if (h[5] != 1) {  // EI_DATA: ELFDATA2LSB
    return invalid("ELF data encoding is not little-endian");
  }
  if (h.size() < k_ehdr_size) {
    return invalid("file too short (" + std::to_string(f.size()) + " bytes)");
  }
  Header out{};
  out.type = load<std::uint16_t>(h, 16);
  out.machine = load<std::uint16_t>(h, 18);
  out.phoff = load<std::uint64_t>(h, 32);
  out.shoff = load<std::uint64_t>(h, 40);
  out.phentsize = load<std::uint16_t>(h, 54);
  out.phnum = load<std::uint16_t>(h, 56);
  out.shentsize = load<std::uint16_t>(h, 58);
  out.shnum = load<std::uint16_t>(h, 60);
  out.shstrndx = load<std::uint16_t>(h, 62);
  return out;
}

util::Result<std::vector<Segment>, ElfError> read_segments(const RootedFile& f, const Header& h) {
  if (h.phentsize != k_phdr_size || h.phnum == 0 || h.phnum > k_max_phnum) {
    return invalid("malformed program header table (" + std::to_string(h.phnum) + " entries of " +
                   std::to_string(h.phentsize) + " bytes)");
  }
  auto table = read_exact(f, h.phoff, std::uint64_t{h.phnum} * k_phdr_size, "the program headers");
  if (!table) {
    return Failure{table.error()};
  }
  std::vector<Segment> segs;
  for (std::size_t i = 0; i < h.phnum; ++i) {
    const std::size_t at = i * k_phdr_size;
    segs.push_back({load<std::uint32_t>(*table, at), load<std::uint64_t>(*table, at + 8),
                    load<std::uint64_t>(*table, at + 16), load<std::uint64_t>(*table, at + 32)});
  }
  return segs;
}

}  // namespace

util::Result<std::string, ElfError> read_exact(const RootedFile& f, std::uint64_t offset, std::uint64_t len,
                                               const char* what) {
  if (offset > f.size() || len > f.size() - offset) {
    return invalid(std::string("file too short: ") + what + " lies past its end (" + std::to_string(f.size()) +
                   " bytes)");
  }
  auto bytes = f.read_at(offset, static_cast<std::size_t>(len));
  if (!bytes || bytes->size() != len) {
    return invalid(std::string("cannot read ") + what);
  }
  return std::move(*bytes);
}

// Where a virtual address lives in the file: through the PT_LOAD segment that maps it.
std::optional<std::uint64_t> DynamicSection::file_offset(std::uint64_t vaddr) const {
  for (const Load& s : loads) {
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) {
      return s.offset + (vaddr - s.vaddr);
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> DynamicSection::value(std::int64_t tag) const {
  for (const auto& [t, v] : entries) {
    if (t == tag) {
      return v;
    }
  }
  return std::nullopt;
}

std::string machine_name(std::uint16_t machine) {
  if (machine == k_em_x86_64) {
    return "x86-64";
  }
  if (machine == k_em_aarch64) {
    return "aarch64";
  }
  return "machine " + std::to_string(machine);
}

util::Result<DynamicSection, ElfError> read_dynamic_section(const RootedFile& f) {
  auto header = read_header(f);
  if (!header) {
    return Failure{header.error()};
  }
  if (header->type != k_et_dyn) {
    return invalid("not a shared object (ELF type " + std::to_string(header->type) + ")");
  }
  auto segs = read_segments(f, *header);
  if (!segs) {
    return Failure{segs.error()};
  }
  const Segment* dyn = nullptr;
  DynamicSection out;
  out.machine = header->machine;
  for (const Segment& s : *segs) {
    if (s.type == k_pt_dynamic) {
      dyn = &s;
    } else if (s.type == k_pt_load) {
      out.loads.push_back({s.offset, s.vaddr, s.filesz});
    }
  }
  if (dyn == nullptr) {
    return invalid("no dynamic section (a static object cannot be loaded)");
  }
  if (dyn->filesz > k_max_dynamic) {
    return invalid("dynamic section of " + std::to_string(dyn->filesz) + " bytes (more than " +
                   std::to_string(k_max_dynamic) + ")");
  }
  auto table = read_exact(f, dyn->offset, dyn->filesz, "the dynamic section");
  if (!table) {
    return Failure{table.error()};
  }
  for (std::size_t at = 0; at + k_dyn_size <= table->size(); at += k_dyn_size) {
    const auto tag = load<std::int64_t>(*table, at);
    if (tag == k_dt_null) {
      break;
    }
    out.entries.emplace_back(tag, load<std::uint64_t>(*table, at + 8));
  }
  return out;
}

util::Result<ElfInfo, ElfError> read_elf_info(const RootedFile& f) {
  auto dynamic = read_dynamic_section(f);
  if (!dynamic) {
    return Failure{dynamic.error()};
  }
  std::vector<std::pair<std::int64_t, std::uint64_t>> strings;  // (tag, offset in strtab)
  std::uint64_t strtab = 0, strsz = 0;
  ElfInfo info;
  info.machine = dynamic->machine;
  for (const auto& [tag, val] : dynamic->entries) {
    if (tag == k_dt_needed || tag == k_dt_soname || tag == k_dt_rpath || tag == k_dt_runpath) {
      strings.emplace_back(tag, val);
    } else if (tag == k_dt_strtab) {
      strtab = val;
    } else if (tag == k_dt_strsz) {
      strsz = val;
    } else if (tag == k_dt_flags_1) {
      info.nodeflib = (val & k_df_1_nodeflib) != 0;
    }
  }
  if (strings.empty()) {
    return info;
  }
  const auto str_at = dynamic->file_offset(strtab);
  if (!str_at || strsz == 0 || strsz > k_max_strtab) {
    return invalid("malformed dynamic string table");
  }
  auto text = read_exact(f, *str_at, strsz, "the dynamic string table");
  if (!text) {
    return Failure{text.error()};
  }
  for (const auto& [tag, offset] : strings) {
    const std::size_t end = offset < text->size() ? text->find('\0', offset) : std::string::npos;
    if (end == std::string::npos) {
      return invalid("dynamic string outside its table");
    }
    const std::string_view s(text->data() + offset, end - offset);
    if (tag == k_dt_needed) {
      info.needed.emplace_back(s);
    } else if (tag == k_dt_soname) {
      info.soname = s;
    } else if (tag == k_dt_rpath) {
      info.has_rpath = true;
      auto dirs = util::split_list(s, ":");
      info.rpath.insert(info.rpath.end(), dirs.begin(), dirs.end());
    } else {
      info.has_runpath = true;
      auto dirs = util::split_list(s, ":");
      info.runpath.insert(info.runpath.end(), dirs.begin(), dirs.end());
    }
  }
  return info;
}

std::optional<FileRange> find_section(const RootedFile& f, std::string_view name) {
  auto header = read_header(f);
  if (!header || header->shoff == 0 || header->shentsize != k_shdr_size || header->shnum == 0 ||
      header->shnum > k_max_shnum || header->shstrndx >= header->shnum) {
    return std::nullopt;
  }
  auto table = read_exact(f, header->shoff, std::uint64_t{header->shnum} * k_shdr_size, "the section headers");
  if (!table) {
    return std::nullopt;
  }
  auto field = [&](std::size_t index, std::size_t at, auto type) {
    return load<decltype(type)>(*table, index * k_shdr_size + at);
  };
  const std::uint64_t names_at = field(header->shstrndx, 24, std::uint64_t{});
  const std::uint64_t names_size = field(header->shstrndx, 32, std::uint64_t{});
  if (names_size > k_max_strtab) {
    return std::nullopt;
  }
  auto names = read_exact(f, names_at, names_size, "the section names");
  if (!names) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < header->shnum; ++i) {
    const std::uint32_t name_at = field(i, 0, std::uint32_t{});
    if (name_at >= names->size() ||
        std::string_view(names->data() + name_at, ::strnlen(names->data() + name_at, names->size() - name_at)) !=
            name) {
      continue;
    }
    const FileRange range{field(i, 24, std::uint64_t{}), field(i, 32, std::uint64_t{})};
    if (field(i, 4, std::uint32_t{}) == k_sht_nobits || range.offset > f.size() ||
        range.size > f.size() - range.offset) {
      return std::nullopt;
    }
    return range;
  }
  return std::nullopt;
}

}  // namespace launcher::fabric
