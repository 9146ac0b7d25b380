#include "sim/run/messages.h"

#include <iostream>

#include "sim/base/printable.h"

namespace lockstep::run {
namespace {

// One write a line: a reader of stderr (or mpirun, merging its ranks')
// sees each line whole.
void PrintLine(const std::string& text) {
  std::cerr << ("lockstep: " + base::Printable(text, /*keep_newlines=*/true) + "\n") << std::flush;
}

}  // namespace

void PrintError(const std::string& message) { PrintLine(message); }

void Warn(const std::string& file, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    if (!w.empty()) {
      PrintLine(file + ": warning: " + w);
    }
  }
}

}  // namespace lockstep::run
