// Whether a SAFE verdict covers anything: the clients that enter the
// critical section in no schedule. A lock whose clients never get in (a
// reply compared with the wrong type, an acquisition that always fails)
// violates no safety property, and a SAFE about it says nothing.
#pragma once

#include <string>
#include <vector>

#include "sim/explore/search.h"

namespace lockstep::explore {

struct Vacuity {
  std::vector<int> never_entered;  // of the clients asked about, in index order
  bool complete = true;            // false: stopped before it knew (never_entered empty)...
  std::string incomplete;          // ...for this reason (SearchResult::incomplete)
  SearchStats stats;               // summed over its searches
};

// Which of `clients` enter the critical section in no schedule that
// `options` covers. Depth-first searches for a state where one of those not
// seen inside yet is inside, each stopping at the first, until one finds
// none: so a lock whose clients all enter costs a short search per client.
// Symmetry is off (a state where C1 is inside may stand for one where C2
// is, and a client would be missed); sleep sets and caching never lose a
// state. The caller's progress callback and ranks are not used: every rank
// of a distributed search asks the same of its own copy.
Vacuity NeverEntered(const world::WorldConfig& config, std::vector<int> clients,
                     SearchOptions options);

}  // namespace lockstep::explore
