// A system call's failure, as the process layer reports it.
#pragma once

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lockstep::process {

// Throws std::runtime_error("WHAT: strerror(errno)").
[[noreturn]] inline void SystemError(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace lockstep::process
