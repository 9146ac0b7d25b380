#include "sim/cli/terminal.h"

#include <unistd.h>

#include <cstdlib>

#include <sys/ioctl.h>

namespace lockstep::cli {
namespace {

// $COLUMNS as a width, if it is one.
std::optional<size_t> ColumnsVariable() {
  const char* text = std::getenv("COLUMNS");
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 20 || v > 10000) return std::nullopt;
  return static_cast<size_t>(v);
}

}  // namespace

trace::TimelineStyle StyleFor(const TerminalOptions& options, int fd) {
  trace::TimelineStyle style;
  style.compact = options.compact;
  style.why = !options.no_why;
  const bool terminal = isatty(fd) != 0;
  if (options.width) {
    style.width = *options.width;
  } else if (terminal) {
    struct winsize size {};
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) {
      style.width = size.ws_col;
    } else {
      style.width = ColumnsVariable().value_or(80);
    }
  } else {
    style.width = ColumnsVariable().value_or(0);
  }
  if (options.color == "always") {
    style.color = true;
  } else if (options.color == "auto") {
    const char* term = std::getenv("TERM");
    style.color = terminal && !std::getenv("NO_COLOR") && !(term && std::string(term) == "dumb");
  }
  return style;
}

}  // namespace lockstep::cli
