#include "code_colours.hpp"

#include <cctype>
#include <set>
#include <string>

namespace rl::gui {

std::vector<CodeRun> colourRuns(std::string_view line) {
  static const std::set<std::string, std::less<>> keywords = {
      "template", "class", "struct", "typename", "if", "else", "for", "while", "return", "const", "constexpr",
      "unsigned", "int", "bool", "void", "auto", "static", "inline", "namespace", "using", "volatile", "true",
      "false", "size_t", "uint32_t", "int32_t", "int64_t", "double", "float", "break", "continue", "long",
      "char", "short", "typedef", "do", "switch", "case", "default", "sizeof"};
  static const std::set<std::string, std::less<>> cuda = {
      "__global__", "__device__", "__host__", "__shared__", "__syncthreads", "__syncwarp", "__forceinline__",
      "__launch_bounds__", "__restrict__", "__shfl_down_sync", "__shfl_xor_sync", "__reduce_add_sync",
      "__reduce_min_sync", "__reduce_max_sync", "__threadfence", "atomicAdd", "atomicMin", "atomicMax",
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
  std::vector<CodeRun> runs;
  auto add = [&](size_t b, size_t e, CodeKind k) {
    if (e > b) runs.push_back({b, e, k});
  };
  auto isWord = [](char c) { return std::isalnum((unsigned char)c) || c == '_'; };
  size_t i = 0;
  while (i < line.size()) {
    if (line.compare(i, 2, "//") == 0 || line[i] == '#') {  // to the end of the line
      add(i, line.size(), CodeKind::Comment);
      break;
    }
    if (line[i] == '"') {
      const size_t e = line.find('"', i + 1);
      const size_t end = e == std::string_view::npos ? line.size() : e + 1;
      add(i, end, CodeKind::Literal);
      i = end;
      continue;
    }
    if (std::isalpha((unsigned char)line[i]) || line[i] == '_') {
      size_t e = i;
      while (e < line.size() && isWord(line[e])) ++e;
      const std::string_view w = line.substr(i, e - i);
      add(i, e, cuda.count(w) ? CodeKind::Cuda : keywords.count(w) ? CodeKind::Keyword : CodeKind::Text);
      i = e;
      continue;
    }
    if (std::isdigit((unsigned char)line[i])) {
      size_t e = i;
      while (e < line.size() && (std::isalnum((unsigned char)line[e]) || line[e] == '.')) ++e;
      add(i, e, CodeKind::Literal);
      i = e;
      continue;
    }
    size_t e = i;
    while (e < line.size() && !isWord(line[e]) && line[e] != '"' && line[e] != '#' && line.compare(e, 2, "//") != 0) ++e;
    add(i, e, CodeKind::Text);
    i = e;
  }
  return runs;
}

}  // namespace rl::gui
