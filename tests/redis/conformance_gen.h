// The random source of the conformance sequences (conformance_generator.cc):
// keys, values, integers at the limits, times near the server's clock, each
// drawn from one seeded stream so that a seed names its sequence.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/redis/conformance.h"

namespace lockstep::conformance {

using std::string_literals::operator""s;

// Deadlines are at least this far from the server's clock: no sequence runs
// long enough for one to cross it.
inline constexpr int64_t kFarSeconds = 1'000'000;
inline constexpr int64_t kFarMs = kFarSeconds * 1000;

// Integers at and around the int64 limits, and around the limits of the
// seconds-to-milliseconds conversion.
inline const std::vector<std::string> kLimits = {
    "9223372036854775807", "9223372036854775806",  "-9223372036854775808", "-9223372036854775807",
    "9223372036854775",    "9223372036854776",     "-9223372036854775",    "-9223372036854776",
    "9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999"};
inline const std::vector<std::string> kNotIntegers = {"abc", "1.5", "",    "+5", " 5",
                                                      "05",  "-0",  "10s", "-",  "1e3"};

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  uint64_t Below(uint64_t n) { return rng_() % n; }
  bool Chance(uint64_t percent) { return Below(100) < percent; }
  const std::string& Pick(const std::vector<std::string>& v) { return v[Below(v.size())]; }

  void set_keys(uint64_t n) { keys_ = n; }
  void set_timed() { timed_ = true; }
  bool timed() const { return timed_; }

  // Command names and keywords in any case: Redis compares them without.
  std::string Cased(std::string_view upper) {
    std::string s(upper);
    const uint64_t how = Below(8);
    for (char& c : s) {
      const bool lower = how == 0 || (how == 1 && Chance(50));
      if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
  }

  // A keyword, now and then with a NUL and junk after it: Redis compares
  // options as C strings, so it still counts.
  Arg Keyword(std::string_view upper, Command* c) {
    std::string s = Cased(upper);
    if (Chance(3)) {
      s += "\0junk"s;
      c->features.push_back("option-with-nul");
    }
    return Lit(s);
  }

  static Arg Lit(std::string s) { return Arg{std::move(s), Arg::Base::kNone, 0}; }

  Arg Key() {
    if (Chance(4)) {
      static const std::vector<std::string> odd = {"", "k\r\n1", "k\0z"s, "lock.foo"};
      return Lit(Pick(odd));
    }
    return Lit("k" + std::to_string(1 + Below(keys_)));
  }

  Arg Value() {
    static const std::vector<std::string> values = {"0",
                                                    "1",
                                                    "-1",
                                                    "10",
                                                    "41",
                                                    "9223372036854775807",
                                                    "-9223372036854775808",
                                                    "9223372036854775806",
                                                    "-9223372036854775807",
                                                    "abc",
                                                    "",
                                                    "01",
                                                    "-0",
                                                    "1.5",
                                                    "+5",
                                                    " 7",
                                                    "18446744073709551616",
                                                    "x\r\ny",
                                                    "\0"s,
                                                    "v"};
    if (Chance(10)) return Lit(std::to_string(static_cast<int64_t>(Below(2001)) - 1000));
    return Lit(Pick(values));
  }

  Arg Increment() {
    static const std::vector<std::string> small = {"1", "-1", "0", "5", "100", "-100"};
    const uint64_t r = Below(100);
    if (r < 60) return Lit(Pick(small));
    if (r < 85) return Lit(Pick(kLimits));
    return Lit(Pick(kNotIntegers));
  }

  // A duration for EX, PX, EXPIRE, PEXPIRE: far in the future, or one whose
  // outcome does not depend on the clock (non-positive, overflowing, not a
  // number). Far-future durations differ by whole seconds within a sequence,
  // so GT and LT never compare two that could land within a millisecond.
  Arg Duration(bool seconds, Command* c) {
    if (timed_ && Chance(75)) return NearDuration(seconds, c);
    const uint64_t r = Below(100);
    if (r < 65) {
      ++relative_;
      c->features.push_back("duration:future");
      return Lit(std::to_string(seconds ? kFarSeconds + 1000 * relative_
                                        : kFarMs + 1'000'000 * relative_));
    }
    if (r < 78) {
      c->features.push_back("duration:non-positive");
      static const std::vector<std::string> v = {"0", "-1", "-1000000"};
      return Lit(Pick(v));
    }
    if (r < 92) {
      c->features.push_back("time:limits");
      return Lit(Pick(kLimits));
    }
    c->features.push_back("time:not-integer");
    return Lit(Pick(kNotIntegers));
  }

  // A Unix time for EXAT, PXAT, EXPIREAT, PEXPIREAT: far past, far future,
  // near the epoch, at the limits, or not a number.
  Arg UnixTime(bool seconds, Command* c) {
    if (timed_ && Chance(75)) return NearUnixTime(seconds, c);
    const uint64_t r = Below(100);
    const Arg::Base base = seconds ? Arg::Base::kNowSeconds : Arg::Base::kNowMs;
    const int64_t far = seconds ? kFarSeconds : kFarMs;
    if (r < 35) {
      c->features.push_back("unix-time:past");
      return Arg{"", base, -far - static_cast<int64_t>(Below(1000))};
    }
    if (r < 75) {
      c->features.push_back("unix-time:future");
      return Arg{"", base, 3 * far + static_cast<int64_t>(Below(1000))};
    }
    if (r < 85) {
      c->features.push_back("unix-time:epoch");
      static const std::vector<std::string> v = {"1", "0", "-1", "-1000"};
      return Lit(Pick(v));
    }
    if (r < 95) {
      c->features.push_back("time:limits");
      return Lit(Pick(kLimits));
    }
    c->features.push_back("time:not-integer");
    return Lit(Pick(kNotIntegers));
  }

  // Timed: a duration that can run out within the sequence, from a few
  // values so that GT and LT meet equal deadlines, and around the 500 ms
  // at which TTL rounds.
  Arg NearDuration(bool seconds, Command* c) {
    c->features.push_back("duration:near");
    if (seconds) return Lit(std::to_string(1 + Below(3)));
    static const std::vector<std::string> v = {"1",    "2",    "499",  "500",  "501", "999",
                                               "1000", "1001", "1499", "1500", "2000"};
    return Chance(80) ? Lit(Pick(v)) : Lit(std::to_string(1 + Below(3000)));
  }

  // Timed: an instant near the clock, just past, now, or soon.
  Arg NearUnixTime(bool seconds, Command* c) {
    c->features.push_back("unix-time:near");
    if (seconds) return Arg{"", Arg::Base::kNowSeconds, static_cast<int64_t>(Below(5)) - 1};
    static const int64_t v[] = {-1, 0, 1, 500, 1000, 1500, 2000};
    return Arg{"", Arg::Base::kNowMs,
               Chance(80) ? v[Below(7)] : static_cast<int64_t>(Below(3000)) - 500};
  }

  // Timed: how far the clock moves before a command; now and then across a
  // TTL's rounding point or a whole TTL.
  int64_t Advance() {
    const uint64_t r = Below(100);
    if (r < 45) return 0;
    if (r < 75) return 1 + static_cast<int64_t>(Below(3));
    if (r < 90) {
      static const int64_t v[] = {499, 500, 501, 999, 1000, 1001};
      return v[Below(6)];
    }
    return static_cast<int64_t>(Below(2500));
  }

 private:
  std::mt19937_64 rng_;
  uint64_t keys_ = 3;
  int64_t relative_ = 0;
  bool timed_ = false;
};

}  // namespace lockstep::conformance
