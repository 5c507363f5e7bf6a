#pragma once
// The program's version and the git commit it was built from ("unknown" outside a checkout).
// One version for every output: --version, JSON meta, recordings, the remote hello.
namespace rl {
const char* versionString();
const char* gitCommit();
struct VersionNumbers {
  int major = 0, minor = 0, patch = 0;
};
// versionString() as numbers (nvbench's JSON writes them apart).
VersionNumbers versionNumbers();
}  // namespace rl
