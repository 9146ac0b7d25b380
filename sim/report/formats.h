// The reports `--report FORMAT:FILE` writes of the outcomes of a run of
// `lockstep test` (or of one `explore`), for the tools CI already reads.
#pragma once

#include <string>
#include <vector>

#include "sim/report/outcome.h"

namespace lockstep::report {

// JUnit XML: one <testcase> per scenario in one <testsuite>; a failure's
// text holds its counterexample's timeline and pin.
std::string JUnitXml(const std::vector<Outcome>& outcomes);

// GitHub Actions workflow commands: a `::error` line at the scenario's
// `expect` for each failure, and one at the algorithm's source line of the
// violating step; a `::notice` for each violation found as expected.
std::string GithubAnnotations(const std::vector<Outcome>& outcomes);

// SARIF 2.1.0: a result per violation found and per failure, a violation's
// code flow holding one thread flow per client (and one for the clock and
// the servers when their steps matter), in the schedule's order.
std::string SarifLog(const std::vector<Outcome>& outcomes);

}  // namespace lockstep::report
