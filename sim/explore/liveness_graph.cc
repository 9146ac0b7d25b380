#include "sim/explore/liveness_graph.h"

namespace lockstep::explore {

std::vector<LivenessGoal> LivenessGoals(LivenessGraph& g,
                                        const std::vector<std::string>& liveness) {
  std::vector<LivenessGoal> goals;
  for (const std::string& p : liveness) {
    if (p == "deadlock_free") goals.push_back({p, -1, std::nullopt});
    if (p == "starvation_free") {
      for (int i = 0; i < g.model().client_count(); ++i) goals.push_back({p, i, std::nullopt});
    }
    if (p == "no_orphaned_lock") {
      std::vector<check::Orphan> all;
      for (size_t v = 0; v < g.size(); ++v) {
        for (const auto& o : g.OrphansOf(static_cast<int>(v))) all.push_back(o);
      }
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      for (const auto& o : all) goals.push_back({p, -1, o});
    }
  }
  return goals;
}

}  // namespace lockstep::explore
