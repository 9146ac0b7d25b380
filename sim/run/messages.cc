#include "sim/run/messages.h"

#include <iostream>

#include "sim/base/printable.h"

namespace lockstep::run {

void PrintError(const std::string& message) {
  std::cerr << "lockstep: " << base::Printable(message, /*keep_newlines=*/true) << "\n";
}

void Warn(const std::string& file, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    if (!w.empty()) {
      std::cerr << "lockstep: " << base::Printable(file + ": warning: " + w, true) << "\n";
    }
  }
}

}  // namespace lockstep::run
