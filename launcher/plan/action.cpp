#include "plan/action.hpp"

namespace launcher {

namespace {

struct Describe {
  std::string operator()(const RaiseLimit& a) const {
    return std::string("raise ") + util::to_string(a.resource) + " soft limit to " +
           (a.soft ? std::to_string(*a.soft) : std::string("unlimited"));
  }
};

}  // namespace

std::string describe(const Action& action) { return std::visit(Describe{}, action); }

}  // namespace launcher
