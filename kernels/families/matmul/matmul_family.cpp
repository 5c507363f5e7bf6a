// The matrix-multiply family (seed 003): C (rows x cols) = A (rows x inner) x B (inner x cols),
// measured in FLOP/s against the arithmetic peaks.
#include "matrix/matrix_family.hpp"

namespace rl {
namespace {

class MatmulFamily final : public MatrixFamily {
 public:
  Family id() const override { return Family::Matmul; }
  std::string_view name() const override { return "matmul"; }
  std::string_view heading() const override { return "matrix multiply (seed 003)"; }
  // A then B in one buffer.
  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override {
    return c.rows * c.inner + c.inner * c.cols;
  }
  // A and B read once and C written once: the least any kernel can move.
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override {
    return (double(c.rows) * double(c.inner) + double(c.inner) * double(c.cols) + double(c.rows) * double(c.cols)) *
           double(elemBytes(c.type));
  }
  double flopsDone(const KernelInfo&, const RunConfig& c) const override {
    return 2.0 * double(c.rows) * double(c.cols) * double(c.inner);
  }
  bool measuresFlops() const override { return true; }
  uint64_t chainBound(const KernelInfo&, const Geometry&, uint64_t n) const override { return n + 2; }  // n: inner

 protected:
  bool hasInner() const override { return true; }
};

}  // namespace

const KernelFamily& matmulFamily() {
  static const MatmulFamily f;
  return f;
}

}  // namespace rl
