#include "sim/report/report_files.h"

#include <array>
#include <filesystem>
#include <utility>

#include "sim/base/input_error.h"
#include "sim/base/printable.h"
#include "sim/report/formats.h"
#include "sim/run/output_file.h"
#include "sim/trace/json_reader.h"

namespace lockstep::report {
namespace {

using Writer = std::string (*)(const std::vector<Outcome>&);

// Each format, once: its name and what writes it.
constexpr std::array<std::pair<const char*, Writer>, 3> kFormats = {{
    {"junit", JUnitXml},
    {"github", GithubAnnotations},
    {"sarif", SarifLog},
}};

Writer WriterOf(const std::string& format) {
  for (const auto& [name, writer] : kFormats) {
    if (format == name) return writer;
  }
  return nullptr;
}

}  // namespace

std::string FormatNames() {
  std::string names;
  for (size_t i = 0; i < kFormats.size(); ++i) {
    names += std::string(i == 0                     ? ""
                         : i + 1 == kFormats.size() ? " or "
                                                    : ", ") +
             kFormats[i].first;
  }
  return names;
}

ReportFile ParseReportFile(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string shown = base::Printable(lockstep::json::Shorten(text));
  if (colon == std::string::npos || colon + 1 == text.size()) {
    throw base::InputError(
        "", "--report",
        "expected FORMAT:FILE, FORMAT " + FormatNames() + ", got \"" + shown + "\"");
  }
  ReportFile file{text.substr(0, colon), text.substr(colon + 1)};
  if (!WriterOf(file.format)) {
    throw base::InputError(
        "", "--report",
        "expected the format " + FormatNames() + " before the colon, got \"" + shown + "\"");
  }
  return file;
}

void CheckReportFiles(const std::vector<ReportFile>& files,
                      const std::vector<std::string>& inputs) {
  std::vector<std::string> seen;
  for (const ReportFile& f : files) {
    run::CheckOutput("--report " + f.format, f.path, inputs);
    std::error_code ec;
    const std::string absolute = std::filesystem::weakly_canonical(f.path, ec).string();
    for (const std::string& before : seen) {
      if (!run::IsStandardOutput(f.path) && before == absolute) {
        throw base::InputError("", "--report",
                               "two reports name the same file " +
                                   base::Printable(lockstep::json::Shorten(f.path)) +
                                   ": one would replace the other");
      }
    }
    seen.push_back(absolute);
  }
}

void WriteReports(const std::vector<ReportFile>& files, const std::vector<Outcome>& outcomes) {
  for (const ReportFile& f : files) run::WriteOutput(f.path, WriterOf(f.format)(outcomes));
}

}  // namespace lockstep::report
