#include "interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace rl::app {

namespace {

std::atomic<bool> gInterrupted{false};

extern "C" void onSigint(int) { gInterrupted.store(true); }

}  // namespace

void installInterruptHandler() {
  struct sigaction sa {};
  sa.sa_handler = onSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // the second Ctrl+C takes the default action
  sigaction(SIGINT, &sa, nullptr);
}

bool interrupted() { return gInterrupted.load(); }
const std::atomic<bool>* interruptFlag() { return &gInterrupted; }

CpuWork terminalWork(const std::string& what) {
  CpuWork w;
  w.cancelled = [] { return interrupted(); };
  if (isatty(fileno(stderr)))
    w.progress = [what](double f) {
      std::fprintf(stderr, "\r%s %3.0f%%%s", what.c_str(), 100 * f, f >= 1 ? "\n" : "");
      std::fflush(stderr);
    };
  return w;
}

}  // namespace rl::app
