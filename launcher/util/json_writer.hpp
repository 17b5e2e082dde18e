#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace launcher::util {

// A small streaming JSON writer with stable, indented output (golden files compare bytes).
// Usage: w.begin_object(); w.key("a"); w.value(1); w.end_object(); w.str().
class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : m_indent(indent) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(std::string_view k);
  void value(std::string_view v);
  void value(const char* v) { value(std::string_view(v)); }
  void value(const std::string& v) { value(std::string_view(v)); }
  void value(std::int64_t v);
  void value(int v) { value(static_cast<std::int64_t>(v)); }
  void value(bool v);
  void null();
  void string_array(const std::vector<std::string>& items);

  // key(k) then value(v): one line per member.
  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

  const std::string& str() const { return m_out; }
  static std::string escape(std::string_view s);

 private:
  void open(char c);
  void close(char c);
  void before_value();
  void newline();

  std::string m_out;
  int m_indent;
  int m_depth = 0;
  bool m_first = true;      // no element yet at this depth
  bool m_after_key = false;
};

}  // namespace launcher::util
