#include <cstdio>
#include <sstream>

#include "sim/base/printable.h"
#include "sim/report/formats.h"
#include "sim/trace/render_svg.h"

namespace lockstep::report {
namespace {

// Text from scenarios and traces as XML: every line printable (no control
// character, which XML 1.0 cannot hold), then escaped.
std::string Xml(const std::string& text) {
  return trace::XmlEscape(base::Printable(text, /*keep_newlines=*/true));
}

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", s);
  return text;
}

}  // namespace

std::string JUnitXml(const std::vector<Outcome>& outcomes) {
  size_t failures = 0, errors = 0;
  double total = 0;
  for (const Outcome& o : outcomes) {
    failures += !o.passed && o.found != "error";
    errors += !o.passed && o.found == "error";
    total += o.seconds;
  }
  const std::string counts = "tests=\"" + std::to_string(outcomes.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                             "\" time=\"" + Seconds(total) + "\"";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites name=\"lockstep\" " << counts << ">\n"
    << "  <testsuite name=\"lockstep\" " << counts << " skipped=\"0\">\n";
  for (const Outcome& o : outcomes) {
    x << "    <testcase classname=\"lockstep\" name=\"" << Xml(o.file) << "\" file=\""
      << Xml(o.file) << "\" time=\"" << Seconds(o.seconds) << "\">\n";
    const std::string body = Xml(o.summary + "\n" + o.details);
    if (!o.passed) {
      const char* kind = o.found == "error" ? "error" : "failure";
      x << "      <" << kind << " message=\"" << Xml(o.summary) << "\" type=\"" << Xml(o.found)
        << "\">" << body << "</" << kind << ">\n";
    } else {
      x << "      <system-out>" << body << "</system-out>\n";
    }
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

}  // namespace lockstep::report
