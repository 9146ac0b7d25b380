// Invariants that no input can break: when one fails, lockstep itself is
// wrong, so it stops at once with a tag to search for and where it failed,
// rather than carrying on with a corrupt state or search.
#pragma once

#include <cstdio>
#include <cstdlib>

// LOCKSTEP_CHECK(cond, "tag: what should hold"), in every build type.
#define LOCKSTEP_CHECK(cond, what)                                                             \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::fprintf(stderr, "lockstep: internal error at %s:%d: %s (%s)\n", __FILE__, __LINE__, \
                   what, #cond);                                                               \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)
