// Layouts and flag values from glibc sysdeps/generic/dl-cache.h and ldconfig.h.
#include "fabric/ld_cache.hpp"

#include <cstring>

#include "fabric/elf_file.hpp"

namespace launcher::fabric {

namespace {

constexpr std::string_view k_magic_old = "ld.so-1.7.0";                 // CACHEMAGIC
constexpr std::string_view k_magic_new = "glibc-ld.so.cache1.1";        // CACHEMAGIC_NEW + version
constexpr std::size_t k_old_header = 16, k_old_entry = 12;              // magic[11] + pad, nlibs
constexpr std::size_t k_new_header = 48, k_new_entry = 24;
constexpr std::uint8_t k_endian_mask = 3, k_endian_little = 2, k_endian_unset = 0;
constexpr std::int32_t k_flag_elf_libc6 = 0x0003, k_flag_x8664_lib64 = 0x0300, k_flag_aarch64_lib64 = 0x0a00;

template <typename T>
T load(const std::string& b, std::size_t at) {
  T v{};
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// Where the NUL-terminated string at `offset` from `base` lies (start, length), or nullopt
// when it runs off the file.
std::optional<std::pair<std::size_t, std::size_t>> string_at(const std::string& b, std::size_t base,
                                                             std::uint32_t offset) {
  const std::size_t at = base + offset;
  if (at >= b.size()) {
    return std::nullopt;
  }
  const std::size_t end = b.find('\0', at);
  if (end == std::string::npos) {
    return std::nullopt;
  }
  return std::pair<std::size_t, std::size_t>(at, end - at);
}

// ld.so's _dl_cache_check_flags: the generic ELF flag, or libc6 for this machine.
bool flags_match(std::int32_t flags, std::uint16_t machine) {
  if (flags == 1) {
    return true;
  }
  if (machine == k_em_x86_64) {
    return flags == (k_flag_elf_libc6 | k_flag_x8664_lib64);
  }
  if (machine == k_em_aarch64) {
    return flags == (k_flag_elf_libc6 | k_flag_aarch64_lib64);
  }
  return false;
}

}  // namespace

util::Result<LdCache> LdCache::parse(std::string bytes) {
  using R = util::Result<LdCache>;
  LdCache cache;
  cache.m_bytes = std::move(bytes);
  const std::string& b = cache.m_bytes;

  std::size_t new_at = 0;
  if (b.compare(0, k_magic_old.size(), k_magic_old) == 0) {
    if (b.size() < k_old_header) {
      return R::failure("truncated old-format header");
    }
    const auto nlibs = load<std::uint32_t>(b, 12);
    const std::size_t strings = k_old_header + std::size_t{nlibs} * k_old_entry;
    if (nlibs > b.size() / k_old_entry || strings > b.size()) {
      return R::failure("old-format table larger than the file");
    }
    new_at = (strings + 7) & ~std::size_t{7};  // the new table follows, 8-byte aligned
    if (new_at + k_magic_new.size() > b.size() || b.compare(new_at, k_magic_new.size(), k_magic_new) != 0) {
      // Old format only: string offsets count from the end of the entry table.
      for (std::uint32_t i = 0; i < nlibs; ++i) {
        const std::size_t at = k_old_header + std::size_t{i} * k_old_entry;
        const auto key = string_at(b, strings, load<std::uint32_t>(b, at + 4));
        const auto value = string_at(b, strings, load<std::uint32_t>(b, at + 8));
        if (!key || !value) {
          return R::failure("entry " + std::to_string(i) + " points outside the file");
        }
        cache.m_entries.push_back({load<std::int32_t>(b, at), 0, key->first, key->second, value->first, value->second});
      }
      return cache;
    }
  } else if (b.compare(0, k_magic_new.size(), k_magic_new) != 0) {
    return R::failure("not an ld.so.cache (unknown magic)");
  }

  if (b.size() < new_at + k_new_header) {
    return R::failure("truncated header");
  }
  const auto nlibs = load<std::uint32_t>(b, new_at + 20);
  const auto endian = static_cast<std::uint8_t>(load<std::uint8_t>(b, new_at + 28) & k_endian_mask);
  if (endian != k_endian_little && endian != k_endian_unset) {
    return R::failure("big-endian cache");
  }
  if (nlibs > (b.size() - new_at - k_new_header) / k_new_entry) {
    return R::failure("entry table larger than the file");
  }
  cache.m_entries.reserve(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const std::size_t at = new_at + k_new_header + std::size_t{i} * k_new_entry;
    // New-format string offsets count from the start of the new header (dl-cache.c cache_data).
    const auto key = string_at(b, new_at, load<std::uint32_t>(b, at + 4));
    const auto value = string_at(b, new_at, load<std::uint32_t>(b, at + 8));
    if (!key || !value) {
      return R::failure("entry " + std::to_string(i) + " points outside the file");
    }
    cache.m_entries.push_back({load<std::int32_t>(b, at), load<std::uint64_t>(b, at + 16), key->first, key->second,
                               value->first, value->second});
  }
  return cache;
}

std::optional<std::string> LdCache::find(std::string_view name, std::uint16_t machine) const {
  const Entry* best = nullptr;
  for (const Entry& e : m_entries) {
    if (std::string_view(m_bytes).substr(e.key_at, e.key_len) == name && flags_match(e.flags, machine)) {
      if (e.hwcap == 0) {
        best = &e;
        break;
      }
      best = best != nullptr ? best : &e;
    }
  }
  if (best == nullptr) {
    return std::nullopt;
  }
  return m_bytes.substr(best->value_at, best->value_len);
}

}  // namespace launcher::fabric
