// How a timeline is printed on the terminal: its width, one line per step
// or a table, and colour (--width, --compact, --color).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "sim/trace/trace.h"

namespace lockstep::cli {

struct TerminalOptions {
  std::optional<size_t> width;  // --width; 0: no limit
  bool compact = false;         // --compact
  bool no_why = false;          // --no-why
  std::string color = "auto";   // --color: auto, always or never
};

// The style for output on descriptor `fd`. Width: --width if given; on a
// terminal, its width (or $COLUMNS, or 80 if neither is known); elsewhere
// $COLUMNS if set, else no limit, so that a file or a pipe gets whole lines.
// Colour: always, never, or (auto) on a terminal unless NO_COLOR is set or
// TERM is "dumb".
trace::TimelineStyle StyleFor(const TerminalOptions& options, int fd);

}  // namespace lockstep::cli
