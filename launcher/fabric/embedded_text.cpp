#include "fabric/embedded_text.hpp"

#include <cctype>
#include <cstring>
#include <vector>

#include "fabric/elf_file.hpp"

namespace launcher::fabric {

namespace {

constexpr std::size_t k_chunk = 1 << 20;

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '+' || c == '_' || c == '-';
}

std::vector<long> numbers(std::string_view v) {
  std::vector<long> out;
  std::size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) != 0) {
    long n = 0;
    for (; i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) != 0 && n < 1000000; ++i) {
      n = n * 10 + (v[i] - '0');
    }
    out.push_back(n);
    if (i + 1 < v.size() && v[i] == '.' && std::isdigit(static_cast<unsigned char>(v[i + 1])) != 0) {
      ++i;
    } else {
      break;
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> find_tagged_word(const RootedFile& file, std::string_view section, std::string_view marker,
                                            std::size_t max_bytes) {
  FileRange range{0, file.size()};
  if (const auto s = find_section(file, section)) {
    range = *s;
  }
  const std::uint64_t end = range.offset + std::min<std::uint64_t>(range.size, max_bytes);
  // Chunks overlap by a marker and a word, so nothing straddling a boundary is missed; one
  // buffer serves every chunk.
  const std::size_t overlap = marker.size() + 64;
  std::string buf(static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk + overlap, end - range.offset)), '\0');
  for (std::uint64_t at = range.offset; at < end;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at));
    const auto got = file.read_into(at, buf.data(), want);
    if (!got || *got == 0) {
      return std::nullopt;
    }
    const std::string_view chunk(buf.data(), *got);
    const void* hit = ::memmem(chunk.data(), chunk.size(), marker.data(), marker.size());
    if (hit != nullptr) {
      const std::size_t from = static_cast<std::size_t>(static_cast<const char*>(hit) - chunk.data()) + marker.size();
      std::size_t to = from;
      while (to < chunk.size() && to - from < 64 && word_char(chunk[to])) {
        ++to;
      }
      if (to > from) {
        return std::string(chunk.substr(from, to - from));
      }
    }
    if (at + *got >= end || *got < want) {
      break;
    }
    at += *got - overlap;
  }
  return std::nullopt;
}

std::optional<std::string> version_in_file_name(std::string_view file_name, std::string_view stem) {
  if (!file_name.starts_with(stem)) {
    return std::nullopt;
  }
  const std::string_view rest = file_name.substr(stem.size());
  if (numbers(rest).size() < 2) {
    return std::nullopt;
  }
  return std::string(rest);
}

int compare_versions(std::string_view a, std::string_view b) {
  const std::vector<long> x = numbers(a), y = numbers(b);
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const long l = i < x.size() ? x[i] : 0, r = i < y.size() ? y[i] : 0;
    if (l != r) {
      return l < r ? -1 : 1;
    }
  }
  return 0;
}

}  // namespace launcher::fabric
