#pragma once
// A property a harness checks beyond "no crash": a violated one aborts, which libFuzzer reports
// with the input that caused it.
#include <cstdio>
#include <cstdlib>

#define RL_FUZZ_CHECK(cond)                                                          \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

#include "reducelab/config.hpp"

// A configuration a reader may hand out: one its kernel's family accepts (a row of the student's
// own kernel, "yours": the checks that need no contract).
inline bool rlFuzzValidConfig(const rl::RunConfig& c) { return rl::validateRow(c, nullptr).empty(); }
