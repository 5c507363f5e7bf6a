// Headless GL through EGL: NVIDIA's EGL device platform when a CUDA-capable EGL device exists
// (so CUDA-GL interop works), Mesa's surfaceless platform otherwise. Renders into an FBO.
#include <glad/egl.h>

#include <cstring>
#include <optional>
#include <vector>

#include "gl_context.hpp"
#include "offscreen_target.hpp"
#include "reducelab/gui/gl.hpp"

namespace rl::app {
namespace {

bool hasExtension(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

class EglContext final : public GlContext {
 public:
  EglContext(EGLDisplay dpy, EGLContext ctx, EGLSurface surf, std::string desc, int w, int h)
      : dpy_(dpy), ctx_(ctx), surf_(surf), desc_(std::move(desc)), w_(w), h_(h) {
    ++liveContexts();
    target_.emplace(w, h);  // the context is current
  }
  ~EglContext() override {
    makeCurrent();
    target_.reset();  // while the context is still current
    eglMakeCurrent(dpy_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surf_ != EGL_NO_SURFACE) eglDestroySurface(dpy_, surf_);
    eglDestroyContext(dpy_, ctx_);
    // The display is the process's, shared by every context on it: terminated with the last one
    // (terminating it under another live context left that one without a display).
    if (--liveContexts() == 0) eglTerminate(dpy_);
  }
  void makeCurrent() override { eglMakeCurrent(dpy_, surf_, surf_, ctx_); }
  bool complete() const { return target_->complete(); }
  bool headless() const override { return true; }
  void framebufferSize(int* w, int* h) const override { *w = w_, *h = h_; }
  unsigned framebuffer() const override { return target_->framebuffer(); }
  std::string description() const override { return desc_; }

 private:
  EGLDisplay dpy_;
  EGLContext ctx_;
  EGLSurface surf_;
  std::string desc_;
  int w_, h_;
  std::optional<OffscreenTarget> target_;
  static int& liveContexts() {
    static int n = 0;
    return n;
  }
};

// Picks a display: a CUDA-capable EGL device first, then Mesa surfaceless, then any device.
EGLDisplay openDisplay(std::string* desc) {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  // NVIDIA lists EGL_EXT_device_base (enumeration + query in one), Mesa the two parts.
  const bool devices = (hasExtension(client, "EGL_EXT_device_enumeration") ||
                        hasExtension(client, "EGL_EXT_device_base")) &&
                       hasExtension(client, "EGL_EXT_platform_device") && eglQueryDevicesEXT &&
                       eglGetPlatformDisplayEXT;
  std::vector<EGLDeviceEXT> devs(16);
  EGLint nd = 0;
  if (devices && !eglQueryDevicesEXT(EGLint(devs.size()), devs.data(), &nd)) nd = 0;
  auto tryDevice = [&](EGLDeviceEXT dev) -> EGLDisplay {
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev, nullptr);
    EGLint ma, mi;
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &ma, &mi)) return d;
    return EGL_NO_DISPLAY;
  };
  for (EGLint i = 0; i < nd; ++i) {
    const char* ext = eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(devs[i], EGL_EXTENSIONS)
                                              : nullptr;
    if (!hasExtension(ext, "EGL_NV_device_cuda")) continue;
    if (EGLDisplay d = tryDevice(devs[i]); d != EGL_NO_DISPLAY) {
      *desc = "EGL device platform (NVIDIA)";
      return d;
    }
  }
  if (hasExtension(client, "EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT) {
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                            nullptr);
    EGLint ma, mi;
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &ma, &mi)) {
      *desc = "EGL surfaceless platform";
      return d;
    }
  }
  for (EGLint i = 0; i < nd; ++i)
    if (EGLDisplay d = tryDevice(devs[i]); d != EGL_NO_DISPLAY) {
      *desc = "EGL device platform";
      return d;
    }
  return EGL_NO_DISPLAY;
}

}  // namespace

std::unique_ptr<GlContext> createHeadlessContext(int width, int height, std::string* error) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
    *error = "EGL is not available (libEGL.so.1 could not be loaded); install libegl1 with "
             "libegl-mesa0 (or the NVIDIA driver) for --headless";
    return nullptr;
  }
  std::string desc;
  EGLDisplay dpy = openDisplay(&desc);
  if (dpy == EGL_NO_DISPLAY) {
    *error = "no EGL display could be opened (no NVIDIA EGL device, no Mesa surfaceless "
             "platform); install libegl-mesa0 and libgl1-mesa-dri, or the NVIDIA driver";
    return nullptr;
  }
  gladLoaderLoadEGL(dpy);  // display extensions
  const char* vendor = eglQueryString(dpy, EGL_VENDOR);
  if (vendor) desc += std::string(", vendor ") + vendor;
  const EGLint cfgAttr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                            EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_RENDERABLE_TYPE,
                            EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig cfg{};
  EGLint nc = 0;
  if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(dpy, cfgAttr, &cfg, 1, &nc) || nc < 1) {
    eglTerminate(dpy);
    *error = "EGL offers no desktop OpenGL configuration on " + desc;
    return nullptr;
  }
  EGLContext ctx = EGL_NO_CONTEXT;
  for (int minor : {5, 3}) {
    const EGLint ctxAttr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, minor,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctxAttr);
    if (ctx != EGL_NO_CONTEXT) break;
  }
  if (ctx == EGL_NO_CONTEXT) {
    eglTerminate(dpy);
    *error = "EGL could not create an OpenGL 4.3+ core context on " + desc;
    return nullptr;
  }
  EGLSurface surf = EGL_NO_SURFACE;
  if (!GLAD_EGL_KHR_surfaceless_context) {
    const EGLint pb[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    surf = eglCreatePbufferSurface(dpy, cfg, pb);
  }
  if (!eglMakeCurrent(dpy, surf, surf, ctx) ||
      !gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    *error = "EGL context could not be made current or GL could not be loaded on " + desc;
    return nullptr;
  }
  installGlDebugOutput();
  auto c = std::make_unique<EglContext>(dpy, ctx, surf, desc, width, height);
  if (!c->complete()) {
    *error = "the offscreen framebuffer of " + std::to_string(width) + "x" +
             std::to_string(height) + " is not complete (size above the GL limit?)";
    return nullptr;
  }
  return c;
}

}  // namespace rl::app
