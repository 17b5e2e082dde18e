#include "util/strings.hpp"

#include <array>
#include <cstdio>

namespace launcher::util {

namespace {

// Length of the valid UTF-8 sequence starting at `s[i]`, or 0 when it is not one (RFC 3629:
// no overlongs, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  std::size_t len = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 < 0x80) {
    return 1;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    lo = b0 == 0xE0 ? 0xA0 : 0x80;
    hi = b0 == 0xED ? 0x9F : 0xBF;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    lo = b0 == 0xF0 ? 0x90 : 0x80;
    hi = b0 == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + len > s.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned char b = byte(i + k);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) {
      return 0;
    }
  }
  return len;
}

void append_hex(std::string& out, unsigned char b) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "\\x%02x", static_cast<unsigned>(b));
  out += buf.data();
}

}  // namespace

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) {
      out += sep;
    }
    out += item;
  }
  return out;
}

std::string plural(long n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0) {
      return false;
    }
    i += len;
  }
  return true;
}

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  const std::size_t n = text.size() < max ? text.size() : max;
  out.reserve(n);
  for (std::size_t i = 0; i < n;) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = utf8_sequence(text, i);
    if (len > 1) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    ++i;
    switch (b) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case 0x1b:
        out += "\\e";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (b < 0x20 || b == 0x7f || len == 0) {
          append_hex(out, b);
        } else {
          out += static_cast<char>(b);
        }
    }
  }
  if (n < text.size()) {
    out += "…";
  }
  return out;
}

}  // namespace launcher::util
