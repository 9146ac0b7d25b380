// What `lockstep --help` and each subcommand's --help say after the
// options: examples, and for the program its exit status, files and related
// pages. The man pages are written from these (cmake/man_page.cmake), so
// the two never disagree.
#pragma once

#include <string>

namespace lockstep::cli {

// "Examples:\n  lockstep explore ...": the subcommand's examples, or for ""
// the program's, with its exit status, files and related pages.
std::string HelpFooter(const std::string& subcommand);

}  // namespace lockstep::cli
