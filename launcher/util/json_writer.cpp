#include "util/json_writer.hpp"

#include <array>
#include <cstdio>

namespace launcher::util {

std::string JsonWriter::escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          std::array<char, 8> buf{};
          std::snprintf(buf.data(), buf.size(), "\\u%04x", static_cast<unsigned>(c));
          out += buf.data();
        } else {
          out += c;
        }
    }
  }
  return out;
}

void JsonWriter::newline() {
  if (m_indent > 0) {
    m_out += '\n';
    m_out.append(static_cast<std::size_t>(m_depth * m_indent), ' ');
  }
}

void JsonWriter::before_value() {
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  if (m_depth > 0) {
    if (!m_first) {
      m_out += ',';
    }
    newline();
  }
  m_first = false;
}

void JsonWriter::open(char c) {
  before_value();
  m_out += c;
  ++m_depth;
  m_first = true;
}

void JsonWriter::close(char c) {
  --m_depth;
  if (!m_first) {
    newline();
  }
  m_out += c;
  m_first = false;
}

void JsonWriter::key(std::string_view k) {
  before_value();
  m_out += '"' + escape(k) + "\":";
  if (m_indent > 0) {
    m_out += ' ';
  }
  m_after_key = true;
}

void JsonWriter::value(std::string_view v) {
  before_value();
  m_out += '"' + escape(v) + '"';
}

void JsonWriter::value(std::int64_t v) {
  before_value();
  m_out += std::to_string(v);
}

void JsonWriter::value(bool v) {
  before_value();
  m_out += v ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  m_out += "null";
}

void JsonWriter::string_array(const std::vector<std::string>& items) {
  begin_array();
  for (const std::string& s : items) {
    value(s);
  }
  end_array();
}

}  // namespace launcher::util
