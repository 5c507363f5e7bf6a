// The transpose family (seed 004): out (cols x rows) = in (rows x cols), through shared tiles or not.
#include "matrix/matrix_family.hpp"
#include "transpose/transpose_kernels.hpp"

#include <algorithm>
#include <cstdint>

namespace rl {
namespace {

constexpr uint32_t kMaxRepeat = 1000;
constexpr uint64_t kMaxElementsMoved = uint64_t(1) << 34;  // per launch, all passes

// Seed 004 timed each kernel twice: 100 launches of one pass ("loop over kernel") and one launch
// that makes 100 passes ("loop within kernel").
FamilyParameter repeatParameter() {
  FamilyParameter p;
  p.key = "repeat", p.axis = "Repeat", p.label = "passes";
  p.tooltip = "The kernel moves the whole matrix this many times in one launch (seed 004's \"loop within kernel\");\n"
              "the bytes moved count every pass. 1: one pass per launch (its \"loop over kernel\").";
  p.help = "Transpose kernels: passes over the matrix inside one launch (seed 004's loop within the kernel), 1.." +
           std::to_string(kMaxRepeat);
  p.what = "a number of passes", p.allowed = "1.." + std::to_string(kMaxRepeat);
  p.role = ParameterRole::Repeats;
  p.defaultValue = 1, p.min = 1, p.max = kMaxRepeat;
  p.get = [](const RunConfig& c) -> uint64_t { return paramsAs<TransposeParams>(c.params).repeat; };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<TransposeParams>(c.params).repeat = uint32_t(std::min<uint64_t>(v, UINT32_MAX)); };
  p.used = [](const KernelInfo&, const RunConfig& c) -> uint64_t { return paramsAs<TransposeParams>(c.params).repeat; };
  return p;
}

class TransposeFamily final : public MatrixFamily {
 public:
  Family id() const override { return Family::Transpose; }
  std::string_view name() const override { return "transpose"; }
  std::string_view heading() const override { return "transpose (seed 004)"; }
  const std::vector<FamilyParameter>& parameters() const override {
    static const std::vector<FamilyParameter> list = {
        rowsParameter<TransposeParams>("Rows of the input matrix (columns of the output)"),
        colsParameter<TransposeParams>("Columns of the input matrix (rows of the output)"), tileParameter<TransposeParams>(),
        repeatParameter()};
    return list;
  }
  std::string validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const override {
    if (std::string e = MatrixFamily::validate(k, c, device); !e.empty()) return e;
    const TransposeParams& p = paramsAs<TransposeParams>(c.params);
    if (p.repeat < 1 || p.repeat > kMaxRepeat)
      return "repeat = " + std::to_string(p.repeat) + " is outside 1.." + std::to_string(kMaxRepeat);
    if (p.rows * p.cols * p.repeat > kMaxElementsMoved)
      return "rows x cols x repeat = " + std::to_string(p.rows * p.cols * p.repeat) +
             " elements per launch is above the limit of 2^34 (seconds per launch): fewer passes or a smaller matrix";
    // Half a transpose is only a permutation of a square matrix cut into whole tiles.
    const int t = effectiveTile(k, c);
    if (k.swapsTiles != k.swapsElements && (p.rows != p.cols || p.rows % uint64_t(t) != 0))
      return "kernel " + std::string(k.key) + " (" + std::string(k.name) +
             ") moves only tiles or only the elements inside them: it needs a square matrix whose side is a "
             "multiple of the tile (" + std::to_string(t) + "), not " + std::to_string(p.rows) + " x " +
             std::to_string(p.cols);
    return {};
  }
  bool descriptorComplete(const KernelInfo& k) const override {
    return commonDescriptorComplete(k) && transposeDescriptorComplete(k);
  }
  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override {
    const TransposeParams& p = paramsAs<TransposeParams>(c.params);
    return p.rows * p.cols;
  }
  // Every element read once and written once, on each of the launch's passes.
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override {
    const TransposeParams& p = paramsAs<TransposeParams>(c.params);
    return 2.0 * double(p.rows) * double(p.cols) * double(elemBytes(c.type)) * double(p.repeat);
  }
  uint64_t chainBound(const KernelInfo&, const Geometry&, uint64_t) const override { return 1; }  // a copy
  // The matrix columns, and the passes one launch makes (seed 004's loop within the kernel).
  std::vector<std::string> extraColumns() const override {
    std::vector<std::string> c = MatrixFamily::extraColumns();
    c.push_back("passes");
    return c;
  }
  std::vector<std::pair<std::string, std::string>> configCells(const KernelInfo& k, const RunConfig& c) const override {
    auto cells = MatrixFamily::configCells(k, c);
    cells.push_back({"passes", std::to_string(paramsAs<TransposeParams>(c.params).repeat)});
    return cells;
  }

 protected:
  void holdOwnParameters(RunConfig& c) const override {
    if (std::holds_alternative<TransposeParams>(c.params)) return;
    const MatrixShape m = matrixShape(c);
    c.params = TransposeParams{m.rows, m.cols, m.tile, 1};
  }
};

}  // namespace

const KernelFamily& transposeFamily() {
  static const TransposeFamily f;
  return f;
}

}  // namespace rl
