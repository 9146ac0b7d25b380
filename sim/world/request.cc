#include "sim/world/request.h"

#include <algorithm>

namespace lockstep::world {

bool Request::ReadsClock() const {
  if (make) return true;
  return std::any_of(argv.begin(), argv.end(), [](const Value& v) { return v.is_clock(); });
}

}  // namespace lockstep::world
