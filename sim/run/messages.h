// What a command says on stderr when it stops or warns: one line each,
// "lockstep: ...". Messages carry users' text (a path, a JSON key, a
// script's error), so they are shown with control characters escaped.
#pragma once

#include <string>
#include <vector>

namespace lockstep::run {

// Prints "lockstep: <message>" on stderr.
void PrintError(const std::string& message);

// Prints each non-empty warning as "lockstep: FILE: warning: ...".
void Warn(const std::string& file, const std::vector<std::string>& warnings);

}  // namespace lockstep::run
