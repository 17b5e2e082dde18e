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

// The code point of the valid `len`-byte sequence at `s[i]`.
char32_t decode(std::string_view s, std::size_t i, std::size_t len) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (len) {
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

// Valid UTF-8 that still changes what a terminal shows: C1 controls (U+0080-U+009F, e.g. CSI),
// and the bidirectional controls that reorder text on screen (U+202E RIGHT-TO-LEFT OVERRIDE:
// "Trojan Source", CVE-2021-42574), the marks, and the line and paragraph separators.
bool is_invisible_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

void append_code_point(std::string& out, char32_t c) {
  std::array<char, 12> buf{};
  std::snprintf(buf.data(), buf.size(), "\\u%04x", static_cast<unsigned>(c));
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

std::string_view cut_utf8(std::string_view text, std::size_t max) {
  if (text.size() <= max) {
    return text;
  }
  std::size_t cut = max;
  // Back over continuation bytes (10xxxxxx) to the start of the sequence the cut falls in.
  for (int k = 0; k < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80; ++k) {
    --cut;
  }
  return text.substr(0, cut);
}

bool is_printable_text(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0 || (len == 1 && (b < 0x20 || b == 0x7f)) || (len > 1 && is_invisible_control(decode(text, i, len)))) {
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
  std::size_t i = 0;
  while (i < n) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = utf8_sequence(text, i);
    if (len > 1) {
      const char32_t c = decode(text, i, len);
      if (is_invisible_control(c)) {
        append_code_point(out, c);
      } else {
        out.append(text.substr(i, len));
      }
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
      default:
        if (b < 0x20 || b == 0x7f || len == 0) {
          append_hex(out, b);
        } else {
          out += static_cast<char>(b);
        }
    }
  }
  if (i < text.size()) {
    out += "…";
  }
  return out;
}

}  // namespace launcher::util
