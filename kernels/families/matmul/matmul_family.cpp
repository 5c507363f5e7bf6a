// The matrix-multiply family (seed 003): C (rows x cols) = A (rows x inner) x B (inner x cols),
// measured in FLOP/s against the arithmetic peaks.
#include "matmul/matmul_kernels.hpp"
#include "matrix/matrix_family.hpp"

namespace rl {
namespace {

FamilyParameter innerParameter() {
  FamilyParameter p;
  const std::string sides = "1.." + std::to_string(kMaxMatrixSide);
  p.key = "inner", p.axis = "Inner", p.label = "inner (K)";
  p.tooltip = "A is rows x K, B is K x cols: the length of each dot product";
  p.help = "Matmul: the inner dimension K (A is rows x K, B is K x cols), " + sides;
  p.what = "a matrix side", p.allowed = sides;
  p.role = ParameterRole::InnerSide;
  p.defaultValue = MatmulParams{}.inner, p.min = 1, p.max = kMaxMatrixSide;
  p.get = [](const RunConfig& c) -> uint64_t { return paramsAs<MatmulParams>(c.params).inner; };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<MatmulParams>(c.params).inner = v; };
  p.used = [](const KernelInfo&, const RunConfig& c) -> uint64_t { return paramsAs<MatmulParams>(c.params).inner; };
  return p;
}

class MatmulFamily final : public MatrixFamily {
 public:
  Family id() const override { return Family::Matmul; }
  std::string_view name() const override { return "matmul"; }
  std::string_view heading() const override { return "matrix multiply (seed 003)"; }
  const std::vector<FamilyParameter>& parameters() const override {
    static const std::vector<FamilyParameter> list = {rowsParameter<MatmulParams>("Rows of C and of A"),
                                                      colsParameter<MatmulParams>("Columns of C and of B"),
                                                      innerParameter(), tileParameter<MatmulParams>()};
    return list;
  }
  bool descriptorComplete(const KernelInfo& k) const override {
    return commonDescriptorComplete(k) && matmulDescriptorComplete(k);
  }
  // A then B in one buffer.
  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override {
    const MatmulParams& p = paramsAs<MatmulParams>(c.params);
    return p.rows * p.inner + p.inner * p.cols;
  }
  // A and B read once and C written once: the least any kernel can move.
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override {
    const MatmulParams& p = paramsAs<MatmulParams>(c.params);
    return (double(p.rows) * double(p.inner) + double(p.inner) * double(p.cols) + double(p.rows) * double(p.cols)) *
           double(elemBytes(c.type));
  }
  double flopsDone(const KernelInfo&, const RunConfig& c) const override {
    const MatmulParams& p = paramsAs<MatmulParams>(c.params);
    return 2.0 * double(p.rows) * double(p.cols) * double(p.inner);
  }
  bool measuresFlops() const override { return true; }
  uint64_t chainBound(const KernelInfo&, const Geometry&, uint64_t n) const override { return n + 2; }  // n: inner

 protected:
  bool hasInner() const override { return true; }
  void holdOwnParameters(RunConfig& c) const override {
    if (std::holds_alternative<MatmulParams>(c.params)) return;
    const MatrixShape m = matrixShape(c);  // a transpose's sides and tile; K: the default
    c.params = MatmulParams{m.rows, m.cols, m.inner, m.tile};
  }
};

}  // namespace

const KernelFamily& matmulFamily() {
  static const MatmulFamily f;
  return f;
}

}  // namespace rl
