// Whether liblockstep_client.so can be preloaded into a program: not into
// a statically linked one (no dynamic loader reads LD_PRELOAD), which
// would otherwise be found out only when its time is up.
#pragma once

#include <string>

namespace lockstep::process {

// Why `program` (a path) would run without the shim: "" if it would not,
// or "X is statically linked". A script is followed to its interpreter
// (#!, and through env to the program env runs), a few levels deep.
// `path` is the PATH the program gets, `cwd` where it runs.
std::string WhyNotPreloadable(const std::string& program, const std::string& path,
                              const std::string& cwd);

}  // namespace lockstep::process
