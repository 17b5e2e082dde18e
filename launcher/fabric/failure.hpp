#pragma once
#include <utility>

#include "util/result.hpp"

namespace launcher::fabric {

// `return Failure{error};` from a function returning util::Result<T, E>, for any T: spares
// spelling Result<T, E>::failure at each of the many early returns of a file parser.
template <typename E>
struct Failure {
  E error;
  template <typename T>
  operator util::Result<T, E>() && {  // NOLINT: implicit by design
    return util::Result<T, E>::failure(std::move(error));
  }
};
template <typename E>
Failure(E) -> Failure<E>;

}  // namespace launcher::fabric
