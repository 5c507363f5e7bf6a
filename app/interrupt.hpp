#pragma once
// Ctrl+C during long CLI work: the first SIGINT only sets a flag that the work polls between
// chunks, so it stops cleanly with nothing half-written (exit code 130); a second SIGINT ends
// the process at once (the default action is restored).
#include <atomic>
#include <string>

#include "reducelab/reference.hpp"

namespace rl::app {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, what shells report for Ctrl+C

void installInterruptHandler();
bool interrupted();
const std::atomic<bool>* interruptFlag();  // for the work that takes a flag (runSweep)

// Hooks for CPU work started from the terminal: cancelled by Ctrl+C; progress "<what> 37%" on
// stderr when it is a terminal (nothing otherwise, so logs and pipes stay clean).
CpuWork terminalWork(const std::string& what);

}  // namespace rl::app
