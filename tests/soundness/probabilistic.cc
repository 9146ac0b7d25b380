// The probabilistic oracles (harness.h, CompareProbabilistic): the verdict
// with random draws weighed against the liveness oracle's on the same
// world, where every draw is the scheduler's; the odds of a violation with
// ForgetHistory and without, and against plain enumeration.
#include <string>
#include <vector>

#include "sim/check/liveness.h"
#include "sim/explore/liveness.h"
#include "sim/explore/violation_odds.h"
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

bool ZeroOrOne(double lower, double upper) { return upper <= 1e-9 || lower >= 1 - 1e-9; }
bool Overlap(double lower_a, double upper_a, double lower_b, double upper_b) {
  return lower_a <= upper_b + 1e-9 && lower_b <= upper_a + 1e-9;
}

// The worst-case odds of each safety property's violation, with
// ForgetHistory and without (the same graph, named apart), and against
// plain enumeration: odds above 0 for some property iff it reaches a
// violation; without draws, every odds 0 or 1.
std::optional<Disagreement> CompareOdds(const scenario::Scenario& s,
                                        const std::string& plain_verdict, bool* compared) {
  world::WorldConfig weighed = s.world;
  weighed.probabilistic = true;
  const explore::OddsSearch forgetting =
      explore::FindViolationOdds(weighed, s.properties, true, {}, kLivenessStates);
  const explore::OddsSearch plain =
      explore::FindViolationOdds(weighed, s.properties, false, {}, kLivenessStates);
  if (forgetting.verdict != explore::Verdict::kSafe || plain.verdict != explore::Verdict::kSafe ||
      plain_verdict == "incomplete") {
    return std::nullopt;
  }
  *compared = true;
  bool reachable = false;
  for (size_t p = 0; p < plain.odds.size(); ++p) {
    const explore::PropertyOdds& a = plain.odds[p];
    const explore::PropertyOdds& b = forgetting.odds[p];
    const std::string expected = a.property + " " + LeastText(a) + " to " + GreatestText(a);
    const std::string found = b.property + " " + LeastText(b) + " to " + GreatestText(b);
    const bool same =
        a.exact && b.exact
            ? a.least == b.least && a.greatest == b.greatest
            : Overlap(a.least_lower, a.least_upper, b.least_lower, b.least_upper) &&
                  Overlap(a.greatest_lower, a.greatest_upper, b.greatest_lower, b.greatest_upper);
    if (!same) return Disagreement{"odds", "ForgetHistory", expected, found};
    if (!MayDraw(s.document) && (!ZeroOrOne(a.least_lower, a.least_upper) ||
                                 !ZeroOrOne(a.greatest_lower, a.greatest_upper))) {
      return Disagreement{"odds", "without draws", "0 or 1", expected};
    }
    // Odds of 0 come from the graph alone (no path): exactly 0.
    reachable = reachable || a.greatest_upper > 0;
  }
  if (reachable != plain_verdict.starts_with("violation")) {
    return Disagreement{"odds", "above 0 iff reached", plain_verdict,
                        reachable ? "odds above 0" : "odds 0"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Disagreement> CompareProbabilistic(const scenario::Scenario& s,
                                                 const std::string& plain_verdict, bool* compared) {
  if (std::optional<Disagreement> d = CompareOdds(s, plain_verdict, compared)) return d;
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
  if (!agrees) return Disagreement{"probabilistic", "fair end components", fair, found};
  // ForgetHistory names the same graph's states apart, and changes nothing.
  const explore::LassoSearch whole = explore::FindLasso(weighed, liveness, false, kLivenessStates);
  if (whole.verdict == explore::Verdict::kIncomplete) return std::nullopt;
  const std::string unforgetting = whole.verdict == explore::Verdict::kViolation
                                       ? "violation:" + whole.violation->property
                                       : explore::VerdictText(whole.verdict);
  if (unforgetting == found) return std::nullopt;
  return Disagreement{"probabilistic", "ForgetHistory", unforgetting, found};
}

}  // namespace lockstep::soundness
