#include "sim/kv/conflicts.h"

#include <algorithm>

#include "sim/kv/command_table.h"

namespace lockstep::kv {

bool CommandsCommute(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return false;
  const CommandSpec* sa = FindRunnable(a[0], a.size());
  const CommandSpec* sb = FindRunnable(b[0], b.size());
  if (!sa || !sb) return false;
  // A script may touch keys it did not declare (Redis 7 allows it): it
  // conflicts with everything.
  if (sa->numkeys_at > 0 || sb->numkeys_at > 0) return false;
  if (sa->access == Access::kRead && sb->access == Access::kRead) return true;
  std::vector<std::string> ka = CommandKeys(*sa, a), kb = CommandKeys(*sb, b);
  for (const auto& k : ka) {
    if (std::find(kb.begin(), kb.end(), k) != kb.end()) return false;
  }
  return true;
}

}  // namespace lockstep::kv
