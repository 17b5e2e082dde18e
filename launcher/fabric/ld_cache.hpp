#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace launcher::fabric {

// /etc/ld.so.cache as ldconfig writes it: library name → path, per machine. Both layouts
// glibc reads (elf/dl-cache.c): "glibc-ld.so.cache1.1" alone (glibc ≥ 2.32's default) and
// the old "ld.so-1.7.0" table, with or without the new one after it.
class LdCache {
 public:
  static constexpr std::size_t k_max_bytes = 16 * 1024 * 1024;

  // Parses `bytes`; an error says what is wrong in one line.
  static util::Result<LdCache> parse(std::string bytes);

  // The path ld.so would take from the cache for `name` when loading for `machine` (EM_*
  // number): the first matching entry, preferring one without a hwcaps subdirectory.
  std::optional<std::string> find(std::string_view name, std::uint16_t machine) const;

  std::size_t size() const { return m_entries.size(); }

 private:
  // Positions in m_bytes rather than views, so that moving the cache cannot leave them dangling.
  struct Entry {
    std::int32_t flags;
    std::uint64_t hwcap;
    std::size_t key_at, key_len, value_at, value_len;
  };

  std::string m_bytes;
  std::vector<Entry> m_entries;
};

}  // namespace launcher::fabric
