// What `lockstep --version` and `lockstep-viewer --version` print.
#pragma once

#include <string>

namespace lockstep::run {

// "PROGRAM VERSION (commit COMMIT)"; the commit is "unknown" outside a git
// checkout and ends in "+changes" when the tree had uncommitted changes.
std::string VersionText(const std::string& program);

}  // namespace lockstep::run
