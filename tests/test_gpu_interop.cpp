// GPU (label gpu): a CUDA kernel writes into a GL buffer through cudaGraphicsGLRegisterBuffer;
// the values read back with glGetBufferSubData are exact, and the rendered PNG shows the strip.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gl_context.hpp"
#include "gpu_support.hpp"
#include "interop.hpp"
#include "reducelab/cuda_device.hpp"
#include "test_support.hpp"

using namespace rl;



TEST(GpuInterop, KernelWritesIntoGlBufferAndReadbackMatches) {
  REQUIRE_GPU();
  std::string error;
  auto ctx = app::createHeadlessContext(64, 64, &error);
  ASSERT_TRUE(ctx) << error;
  for (int n : {1, 4096, 1 << 20, (1 << 20) + 3}) {
    GLuint buf = app::createFloatBuffer(n);
    app::CudaGlBuffer cgl;
    std::string writer;
    ASSERT_EQ(app::fillInteropBuffer(buf, n, true, cgl, &writer), "");
    EXPECT_EQ(writer, "CUDA kernel");
    cgl.detach();
    EXPECT_EQ(app::countPatternMismatches(buf, n), 0) << "n=" << n;
    glDeleteBuffers(1, &buf);
  }
}

TEST(GpuInterop, PngShowsTheKernelWrittenStrip) {
  REQUIRE_GPU();
  const std::string png = test::tempPath("gpu-strip.png"), layout = test::tempPath("gpu-strip.json");
  auto r = test::runReducelab("--headless --frames 3 --screenshot " + png + " --dump-layout " + layout);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(layout);
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["interop_writer"].get<std::string>(), "CUDA kernel");
  EXPECT_FALSE(j["cpu_model"].get<bool>());
  test::Image img = test::loadPng(png);
  ASSERT_TRUE(img.ok());
  auto rect = j["panels"]["interop-strip"];
  const int y = int(rect[1].get<float>() + rect[3].get<float>() / 2);
  const int x0 = int(rect[0].get<float>()) + 2, x1 = int(rect[0].get<float>() + rect[2].get<float>()) - 3;
  int white = 0;
  for (int x = x0; x <= x1; ++x) {
    const uint8_t* p = img.at(x, y);
    white += p[0] > 240 && p[1] > 240 && p[2] > 240;
  }
  const uint8_t* right = img.at(x1, y);
  EXPECT_GE(white, 3);
  EXPECT_GT(right[0], 180);
  EXPECT_GT(right[1], 180);
  EXPECT_LT(right[2], 120);
}

TEST(GpuInfo, ReportsDeviceAndPeak) {
  REQUIRE_GPU();
  auto r = test::runReducelab("info --json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["device_available"].get<bool>());
  EXPECT_GT(j["device"]["theoretical_peak_gbs"].get<double>(), 100.0);
  EXPECT_TRUE(j["interop_ok"].get<bool>()) << j["interop"];
}
