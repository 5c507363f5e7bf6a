// The transpose family (seed 004): out (cols x rows) = in (rows x cols), through shared tiles or not.
#include "matrix/matrix_family.hpp"
#include "transpose/transpose_kernels.hpp"

namespace rl {
namespace {

class TransposeFamily final : public MatrixFamily {
 public:
  Family id() const override { return Family::Transpose; }
  std::string_view name() const override { return "transpose"; }
  std::string_view heading() const override { return "transpose (seed 004)"; }
  const std::vector<FamilyParameter>& parameters() const override {
    static const std::vector<FamilyParameter> list = {
        rowsParameter<TransposeParams>("Rows of the input matrix (columns of the output)"),
        colsParameter<TransposeParams>("Columns of the input matrix (rows of the output)"), tileParameter<TransposeParams>()};
    return list;
  }
  bool descriptorComplete(const KernelInfo& k) const override {
    return commonDescriptorComplete(k) && transposeDescriptorComplete(k);
  }
  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override {
    const TransposeParams& p = paramsAs<TransposeParams>(c.params);
    return p.rows * p.cols;
  }
  // Every element read once and written once.
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override {
    const TransposeParams& p = paramsAs<TransposeParams>(c.params);
    return 2.0 * double(p.rows) * double(p.cols) * double(elemBytes(c.type));
  }
  uint64_t chainBound(const KernelInfo&, const Geometry&, uint64_t) const override { return 1; }  // a copy

 protected:
  void holdOwnParameters(RunConfig& c) const override {
    if (std::holds_alternative<TransposeParams>(c.params)) return;
    const MatrixShape m = matrixShape(c);
    c.params = TransposeParams{m.rows, m.cols, m.tile};
  }
};

}  // namespace

const KernelFamily& transposeFamily() {
  static const TransposeFamily f;
  return f;
}

}  // namespace rl
