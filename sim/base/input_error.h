// Bad input, in one style. Everything a user hands lockstep (a scenario, a
// trace, a schedule, a command-line value, a file to read or write) that is
// not what was expected ends in an InputError naming where and what; the CLI
// prints what() and exits 2. Broken invariants are not input errors: they
// stop with LOCKSTEP_CHECK (sim/base/check.h).
#pragma once

#include <stdexcept>
#include <string>

namespace lockstep::base {

// what(): "FILE: at PLACE: EXPECTED", leaving out the parts that are empty.
struct InputError : std::runtime_error {
  InputError(std::string file_in, std::string place_in, std::string expected_in)
      : std::runtime_error(Compose(file_in, place_in, expected_in)),
        file(std::move(file_in)),
        place(std::move(place_in)),
        expected(std::move(expected_in)) {}

  std::string file;      // the file read or written; "" if not from a file
  std::string place;     // a JSON pointer, "--option", "step 7"; "" if none
  std::string expected;  // what was expected there, and what was found

 private:
  static std::string Compose(const std::string& file, const std::string& place,
                             const std::string& expected) {
    std::string s = file.empty() ? "" : file + ": ";
    if (!place.empty()) s += "at " + place + ": ";
    return s + expected;
  }
};

}  // namespace lockstep::base
