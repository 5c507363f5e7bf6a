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
