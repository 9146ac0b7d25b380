#include <sstream>

#include "sim/base/printable.h"
#include "sim/report/formats.h"
#include "sim/report/locations.h"

namespace lockstep::report {
namespace {

// A workflow command's text, printable, with the characters the runner
// reads as syntax written as it asks: %25, %0D and %0A in a message, and
// in a property's value (`property`) %3A and %2C too.
std::string Escaped(const std::string& text, bool property) {
  std::string out;
  for (char c : base::Printable(text, /*keep_newlines=*/true)) {
    const char* code = c == '%'               ? "%25"
                       : c == '\r'            ? "%0D"
                       : c == '\n'            ? "%0A"
                       : property && c == ':' ? "%3A"
                       : property && c == ',' ? "%2C"
                                              : nullptr;
    if (code) {
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}
std::string Data(const std::string& text) { return Escaped(text, false); }
std::string Property(const std::string& text) { return Escaped(text, true); }

void Line(std::ostringstream& out, const char* kind, const Location& at, const std::string& title,
          const std::string& message) {
  out << "::" << kind << " file=" << Property(at.path) << ",line=" << at.line
      << ",title=" << Property(title) << "::" << Data(message) << "\n";
}

}  // namespace

std::string GithubAnnotations(const std::vector<Outcome>& outcomes) {
  std::ostringstream out;
  for (const Outcome& o : outcomes) {
    const bool violation = o.counterexample && o.counterexample->violation;
    if (o.passed && !violation) continue;
    const char* kind = o.passed ? "notice" : "error";
    std::string message = o.summary;
    if (!o.counterexample_file.empty()) {
      message += "\nreplay it: lockstep replay " + o.counterexample_file;
    }
    if (!o.one_line.empty()) message += "\npin: " + o.one_line;
    if (!o.passed && o.found == "error" && !o.details.empty()) message += "\n" + o.details;
    Line(out, kind, ScenarioLocation(o.file), "lockstep: " + o.name, message);
    if (!violation) continue;
    const trace::Trace& t = *o.counterexample;
    const int step = ViolatingStep(t);
    if (step == 0) continue;
    const world::StepRecord& r = t.steps[static_cast<size_t>(step)];
    const std::optional<Location> source = SourceLocation(t, o.file, r.source);
    // A built-in algorithm's line is lockstep's, not in the user's tree.
    if (!source || !source->base.empty()) continue;
    Line(out, kind, *source, "lockstep: " + t.violation->property,
         "step " + std::to_string(step) + ", " + trace::StepLine(r) + ": this request " +
             "completes the violation of " + t.violation->property + " in " + o.file);
  }
  return out.str();
}

}  // namespace lockstep::report
