// A program's algorithm that declares a setting under a name lockstep's own
// algorithms declare otherwise (its own retry_delay, say) is told so at its
// start-up, with both declarations and the declaration to reuse, and exits
// 2: bad input, not an internal error.
#include <string>

#include <catch2/catch.hpp>

#include "sim/algo/algorithm.h"
#include "sim/algo/lock_settings.h"
#include "sim/base/limits.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;

const std::string kMaxSpanText = std::to_string(base::Limits::kMaxSpan);

constexpr algo::Setting kOwnRetryDelay{
    .name = "retry_delay", .help = "my own retry delay", .min = 1, .max = 100, .default_value = 2};

TEST_CASE(
    "a program whose algorithm redeclares a shipped setting exits 2 at start-up, saying "
    "what to reuse",
    "[algo]") {
  const testing::ProcessResult r = testing::RunProgram({LOCKSTEP_SETTING_CLASH_PROGRAM});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);  // not 1000 + SIGABRT
  CHECK(r.out.empty());     // main never ran
  CHECK_FALSE(Has(r.err, "internal error"));
  CHECK(Has(r.err, "lockstep: "));
  CHECK(Has(r.err,
            "tests/algo/setting_clash_program.cc: algorithm \"my-backoff\" declares the "
            "setting \"retry_delay\" unlike lockstep's own declaration of it, "
            "lockstep::kRetryDelaySetting, which its algorithm \""));
  CHECK(Has(r.err,
            "\n  \"my-backoff\": integer in [1, 100], default 2: my own retry delay\n"
            "  lockstep::kRetryDelaySetting: integer in [0, " +
                kMaxSpanText + "], default 1: sleep before retrying a held lock\n"));
  CHECK(Has(r.err,
            "put lockstep::kRetryDelaySetting in the settings of \"my-backoff\" instead of "
            "a declaration of its own"));
}

TEST_CASE(
    "a setting declared two ways: both declarations, how they differ and the fix, in "
    "either order of registration",
    "[algo]") {
  const algo::Declarer mine{"my-lock", "/home/me/my_lock.cc"};
  const algo::Declarer shipped{"set-px-del", "/build/sim/algo/set_nx_px.cc"};
  const std::string told =
      algo::SettingClash(kOwnRetryDelay, mine, algo::kRetryDelaySetting, shipped);
  CHECK(told ==
        "/home/me/my_lock.cc: algorithm \"my-lock\" declares the setting \"retry_delay\" unlike "
        "lockstep's own declaration of it, lockstep::kRetryDelaySetting, which its algorithm "
        "\"set-px-del\" reads (they differ in range, default and help):\n"
        "  \"my-lock\": integer in [1, 100], default 2: my own retry delay\n"
        "  lockstep::kRetryDelaySetting: integer in [0, " +
            kMaxSpanText +
            "], default 1: sleep before retrying a held lock\n"
            "A setting's name in a scenario's \"lock\" object means one thing for every algorithm: "
            "put lockstep::kRetryDelaySetting in the settings of \"my-lock\" instead of a "
            "declaration of its own, or give \"my-lock\"'s setting another name.");
  // The program's algorithm registered first, the shipped one after it.
  CHECK(algo::SettingClash(algo::kRetryDelaySetting, shipped, kOwnRetryDelay, mine) == told);
  // Only the help differs: it is said.
  algo::Setting other_help = algo::kKeySetting;
  other_help.help = "where my lock lives";
  CHECK(Has(algo::SettingClash(other_help, mine, algo::kKeySetting, shipped),
            "\"key\" unlike lockstep's own declaration of it, lockstep::kKeySetting, which its "
            "algorithm \"set-px-del\" reads (they differ in help):\n"
            "  \"my-lock\": string, default \"lock.foo\": where my lock lives\n"));
}

TEST_CASE("two programs' algorithms declaring one setting two ways are both named", "[algo]") {
  algo::Setting a{.name = "patience", .help = "ticks", .min = 0, .max = 9, .default_value = 1};
  algo::Setting b = a;
  b.type = algo::SettingType::kBool;
  b.max = 0;
  b.default_value = 0;
  const std::string told = algo::SettingClash(a, {"lock-a", "a.cc"}, b, {"lock-b", "b.cc"});
  CHECK(Has(told,
            "a.cc: algorithm \"lock-a\" declares the setting \"patience\" unlike algorithm "
            "\"lock-b\" (b.cc) (they differ in type, range and default):\n"
            "  \"lock-a\": integer in [0, 9], default 1: ticks\n"
            "  \"lock-b\": boolean, default false: ticks\n"));
  CHECK(Has(told,
            "declare it once, as a constexpr lockstep::Setting that both algorithms' "
            "settings name, or give one of them another name."));
}

}  // namespace
}  // namespace lockstep
