#include "sim/run/version.h"

#include "lockstep_version.h"  // generated at every build (cmake/version.cmake)

namespace lockstep::run {

std::string VersionText(const std::string& program) {
  return program + " " + LOCKSTEP_VERSION + " (commit " + LOCKSTEP_COMMIT + ")";
}

}  // namespace lockstep::run
