#pragma once
// The colouring of C++/CUDA source shared by the Source view and the editor of your kernel: a line
// cut into runs of one kind each (line-local: a `/* */` comment over several lines is not tracked).
#include <string>
#include <string_view>
#include <vector>

namespace rl::gui {

enum class CodeKind { Text, Keyword, Cuda, Comment, Literal };
struct CodeRun {
  size_t begin = 0, end = 0;  // byte offsets into the line
  CodeKind kind = CodeKind::Text;
};
std::vector<CodeRun> colourRuns(std::string_view line);

}  // namespace rl::gui
