#pragma once
#include <string>
#include <utility>
#include <variant>

namespace launcher::util {

// A value or an error message: expected failures travel as values (ccache's tl::expected
// idiom; std::expected is C++23). `E` defaults to a human-readable one-line message.
template <typename T, typename E = std::string>
class Result {
 public:
  Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  static Result failure(E error) { return Result(std::in_place_index<1>, std::move(error)); }

  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(m_v); }
  T& value() & { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const E& error() const { return std::get<1>(m_v); }

 private:
  template <std::size_t I, typename V>
  Result(std::in_place_index_t<I> i, V&& v) : m_v(i, std::forward<V>(v)) {}
  std::variant<T, E> m_v;
};

}  // namespace launcher::util
