// The probabilistic oracle (harness.h, CompareProbabilistic): the verdict
// with random draws weighed against the liveness oracle's on the same
// world, where every draw is the scheduler's.
#include <string>
#include <vector>

#include "sim/check/liveness.h"
#include "sim/explore/liveness.h"
#include "tests/soundness/harness.h"

namespace lockstep::soundness {
namespace {

// Whether a client of the document may draw: a Lua lock.draw or a
// lock.sleep(least, most), or a built-in that backs off at random (Redlock).
// It may say so of one that does not; then only the weaker check is made.
bool MayDraw(const nlohmann::json& doc) {
  const std::string text = doc.dump();
  if (text.find("lock.draw(") != std::string::npos || text.find("\"redlock") != std::string::npos) {
    return true;
  }
  // lock.sleep with a second argument: a comma outside any inner call.
  for (size_t at = text.find("lock.sleep("); at != std::string::npos;
       at = text.find("lock.sleep(", at + 1)) {
    int depth = 0;
    for (size_t k = at + 11; k < text.size() && depth >= 0; ++k) {
      if (text[k] == '(') ++depth;
      if (text[k] == ')') --depth;
      if (text[k] == ',' && depth == 0) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<Disagreement> CompareProbabilistic(const scenario::Scenario& s, bool* compared) {
  const std::vector<std::string> liveness = check::LivenessIn(s.properties);
  if (liveness.empty() || s.world.horizon) return std::nullopt;
  world::WorldConfig weighed = s.world;
  weighed.probabilistic = true;
  const explore::LassoSearch almost = explore::FindLasso(weighed, liveness, true, kLivenessStates);
  const std::string fair = LivenessOracle(weighed, liveness, kLivenessStates);
  if (almost.verdict == explore::Verdict::kIncomplete || fair == "incomplete") return std::nullopt;
  *compared = true;
  const std::string found = almost.verdict == explore::Verdict::kViolation
                                ? "violation:" + almost.violation->property
                                : explore::VerdictText(almost.verdict);
  // A fair end component holds a fair cycle: what is violated with a
  // positive probability is violated in some fair run. Without draws every
  // choice has one outcome, and the end components are the fair cycles'.
  const bool agrees = MayDraw(s.document) ? found == "safe" || fair != "safe" : found == fair;
  if (agrees) return std::nullopt;
  return Disagreement{"probabilistic", "fair end components", fair, found};
}

}  // namespace lockstep::soundness
