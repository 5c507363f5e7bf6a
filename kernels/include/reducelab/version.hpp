#pragma once
// The program's version and the git commit it was built from ("unknown" outside a checkout).
namespace rl {
const char* versionString();
const char* gitCommit();
}  // namespace rl
