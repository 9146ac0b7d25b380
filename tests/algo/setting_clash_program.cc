// A program of its own, as a user writes one against <lockstep/lockstep.h>,
// whose algorithm declares "retry_delay" unlike the shipped algorithms do.
// Its registration runs at static initialisation, before main: it must stop
// the program there with exit 2 and a message that says what to reuse
// (tests/algo/setting_clash_test.cc runs it).
#include <cstdio>

#include <lockstep/lockstep.h>

namespace {

void RunMyBackoff(lockstep::Client& c, const lockstep::Settings& s) {
  c.Sleep(s.Int("retry_delay"));
}

constexpr lockstep::Setting kMyBackoffSettings[] = {
    lockstep::kKeySetting,
    {.name = "retry_delay", .help = "my own retry delay", .min = 1, .max = 100, .default_value = 2},
};

}  // namespace

LOCKSTEP_ALGORITHM(my_backoff, {.name = "my-backoff",
                                .summary = "sleeps retry_delay",
                                .make = lockstep::MakeBody<RunMyBackoff>,
                                .settings = kMyBackoffSettings});

int main() {
  std::puts("registered: the clash was not refused");
  return 0;
}
