#include "sim/world/fault_kind.h"

namespace lockstep::world {

std::string FaultKindNames() {
  std::string s;
  for (const FaultKind& f : kFaultKinds) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

}  // namespace lockstep::world
