// The transpose family (seed 004): out (cols x rows) = in (rows x cols), through shared tiles or not.
#include "matrix/matrix_family.hpp"

namespace rl {
namespace {

class TransposeFamily final : public MatrixFamily {
 public:
  Family id() const override { return Family::Transpose; }
  std::string_view name() const override { return "transpose"; }
  std::string_view heading() const override { return "transpose (seed 004)"; }
  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override { return c.rows * c.cols; }
  // Every element read once and written once.
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override {
    return 2.0 * double(c.rows) * double(c.cols) * double(elemBytes(c.type));
  }
  uint64_t chainBound(const KernelInfo&, const Geometry&, uint64_t) const override { return 1; }  // a copy
};

}  // namespace

const KernelFamily& transposeFamily() {
  static const TransposeFamily f;
  return f;
}

}  // namespace rl
