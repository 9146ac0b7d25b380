// The man pages the build writes (cmake/man_page.cmake, from each
// command's --help): lockstep(1) and a page per subcommand, each with the
// sections a reader looks for. The Release build writes them (the
// sanitizer build makes only the test programs), so this is a sweep.
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using testing::Has;

// The subcommands, as lockstep names them to a user who asks for another.
std::vector<std::string> Subcommands() {
  const testing::ProcessResult r = testing::RunLockstep({"no-such-subcommand"});
  const std::string marker = "expected one of ";
  const size_t at = r.err.find(marker);
  REQUIRE(at != std::string::npos);
  std::vector<std::string> names;
  std::string list = r.err.substr(at + marker.size());
  list = list.substr(0, list.find('\n'));
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find(", ", start);
    if (end == std::string::npos) end = list.size();
    names.push_back(list.substr(start, end - start));
    start = end + 2;
  }
  return names;
}

TEST_CASE("every man page has its exit status, examples and related pages", "[sweep]") {
  const fs::path man = fs::path(testing::LockstepBinary()).parent_path() / "man";
  std::vector<std::string> pages = {"lockstep"};
  for (const std::string& sub : Subcommands()) pages.push_back("lockstep-" + sub);
  CHECK(pages.size() >= 9);
  for (const std::string& page : pages) {
    INFO(page);
    const fs::path file = man / (page + ".1");
    REQUIRE(fs::exists(file));
    const std::string text = testing::ReadText(file.string());
    for (const char* section : {"\n.SH NAME\n", "\n.SH SYNOPSIS\n", "\n.SH \"EXIT STATUS\"\n",
                                "\n.SH EXAMPLES\n", "\n.SH \"SEE ALSO\"\n"}) {
      CHECK(Has(text, section));
    }
    CHECK(Has(text, ".SH NAME\n" + page + " \\-"));
  }
}

}  // namespace
}  // namespace lockstep
