#pragma once
// What the platform a build runs on cannot do, said once: the desktop can do everything; the browser
// (the WebAssembly build, web/) has no GPU, no CUDA compiler and no processes to start.
namespace rl::platform {
#ifdef __EMSCRIPTEN__
inline constexpr bool kBrowser = true;
inline constexpr const char* kBrowserLimits =
    "in the browser ReduceLab replays recordings and runs the CPU model: measuring, compiling and checking your "
    "own kernel need the desktop app on a machine with an NVIDIA GPU";
#else
inline constexpr bool kBrowser = false;
inline constexpr const char* kBrowserLimits = "";
#endif
}  // namespace rl::platform
