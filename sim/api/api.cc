#include "lockstep/lockstep.h"

namespace lockstep {

ExploreResult Explore(const std::string& scenario_file, ExploreOptions options) {
  return run::Explore(LoadScenarioFile(scenario_file), std::move(options));
}

}  // namespace lockstep
