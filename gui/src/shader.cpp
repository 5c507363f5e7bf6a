#include "reducelab/gui/shader.hpp"

#include <imgui.h>

#include <map>
#include <sstream>

#include "reducelab/embedded_text.hpp"

namespace rl {
extern const EmbeddedText kShaderFiles[];
extern const int kShaderFiles_count;
}  // namespace rl

namespace rl::gui {

std::string shaderSource(std::string_view name) {
  std::string_view text = findEmbedded(kShaderFiles, kShaderFiles_count, name);
  if (text.empty()) return {};
  std::istringstream in{std::string(text)};
  std::string out, line;
  while (std::getline(in, line)) {
    const std::string key = "#include \"";
    if (line.rfind(key, 0) == 0) {
      std::string inc = line.substr(key.size(), line.find('"', key.size()) - key.size());
      out += shaderSource(inc);
    } else {
      out += line;
    }
    out += '\n';
  }
  return out;
}

namespace {
GLuint compile(GLenum type, std::string_view name, std::string* log) {
  std::string src = shaderSource(name);
  if (src.empty()) {
    *log = "shader file not found: " + std::string(name);
    return 0;
  }
  // The file's version line is this platform's (reducelab/gui/gl.hpp: GLSL ES 3.00 in the browser).
  if (const std::string_view desktop = "#version 430 core\n"; src.rfind(desktop, 0) == 0 && desktop != kGlslPrelude)
    src = kGlslPrelude + src.substr(desktop.size());
  GLuint s = glCreateShader(type);
  const char* p = src.c_str();
  glShaderSource(s, 1, &p, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char buf[2048];
    glGetShaderInfoLog(s, sizeof buf, nullptr, buf);
    *log = std::string(name) + ": " + buf;
    glDeleteShader(s);
    return 0;
  }
  return s;
}
}  // namespace

GLuint buildProgram(std::string_view vertName, std::string_view fragName, std::string* log) {
  GLuint vs = compile(GL_VERTEX_SHADER, vertName, log);
  if (!vs) return 0;
  GLuint fs = compile(GL_FRAGMENT_SHADER, fragName, log);
  if (!fs) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint prog = glCreateProgram();
  glAttachShader(prog, vs);
  glAttachShader(prog, fs);
  glLinkProgram(prog);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    char buf[2048];
    glGetProgramInfoLog(prog, sizeof buf, nullptr, buf);
    *log = std::string(fragName) + " (link): " + buf;
    glDeleteProgram(prog);
    return 0;
  }
  return prog;
}

namespace {
// Per window, keyed by its ImGui context (each window has its own, current while it draws and
// renders); released by the window before it goes, so a later window at the same address starts empty.
struct WindowGlObjects {
  GLuint vertexArray = 0;
  std::map<std::string, GLuint, std::less<>> programs;
  std::map<std::string, std::string, std::less<>> failures;
};
std::map<const ImGuiContext*, WindowGlObjects>& glObjectsByWindow() {
  static std::map<const ImGuiContext*, WindowGlObjects> byWindow;
  return byWindow;
}
}  // namespace

GLuint windowProgram(std::string_view vertName, std::string_view fragName, std::string* error) {
  WindowGlObjects& w = glObjectsByWindow()[ImGui::GetCurrentContext()];
  const std::string key = std::string(vertName) + "|" + std::string(fragName);
  if (auto f = w.failures.find(key); f != w.failures.end()) {
    if (error) *error = f->second;
    return 0;
  }
  if (auto p = w.programs.find(key); p != w.programs.end()) return p->second;
  std::string log;
  const GLuint program = buildProgram(vertName, fragName, &log);
  if (program) w.programs[key] = program;
  else w.failures[key] = log;
  if (error) *error = program ? "" : log;
  return program;
}

GLuint windowVertexArray() {
  WindowGlObjects& w = glObjectsByWindow()[ImGui::GetCurrentContext()];
  if (!w.vertexArray) glGenVertexArrays(1, &w.vertexArray);
  return w.vertexArray;
}

void releaseWindowGlObjects() {
  auto& all = glObjectsByWindow();
  auto it = all.find(ImGui::GetCurrentContext());
  if (it == all.end()) return;
  for (const auto& [key, program] : it->second.programs) glDeleteProgram(program);
  if (it->second.vertexArray) glDeleteVertexArrays(1, &it->second.vertexArray);
  all.erase(it);
}

}  // namespace rl::gui
