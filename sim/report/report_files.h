// `--report FORMAT:FILE`, on `lockstep test` and `lockstep explore`: which
// reports to write, checked before the work and written after it as every
// output is (run::WriteOutput: whole or not at all, never over an input).
#pragma once

#include <string>
#include <vector>

#include "sim/report/outcome.h"

namespace lockstep::report {

struct ReportFile {
  std::string format;  // "junit", "github" or "sarif"
  std::string path;
};

// "junit, github or sarif".
std::string FormatNames();

// Reads "junit:lockstep.xml". Throws base::InputError naming --report.
ReportFile ParseReportFile(const std::string& text);

// Throws base::InputError if some report could not be written (the same
// file twice, an input, a folder; run::CheckOutput). Call before the work.
void CheckReportFiles(const std::vector<ReportFile>& files, const std::vector<std::string>& inputs);

// Writes every report of `outcomes`. Throws base::InputError if one could
// not be written; those before it are written.
void WriteReports(const std::vector<ReportFile>& files, const std::vector<Outcome>& outcomes);

}  // namespace lockstep::report
