// The CPU model of the traced kernels, for any family: the checks every model shares, then the
// family's own model (kernels/families/<family>/*_model.cpp).
#include "reducelab/family.hpp"
#include "reducelab/trace.hpp"

namespace rl {

TraceData modelTrace(const RunConfig& c, uint64_t grid, int ccMajor, std::string* error) {
  if (std::string e = validate(c, nullptr); !e.empty()) {
    if (error) *error = e;
    return {};
  }
  const KernelInfo& k = *findKernel(c.kernel);
  if (!k.traceable) {
    if (error) *error = "CUB is a library: it has no traced twin";
    return {};
  }
  if (c.tracedBlock >= grid) {
    if (error)
      *error = "block " + std::to_string(c.tracedBlock) + " does not exist: the grid has " +
               std::to_string(grid) + " blocks";
    return {};
  }
  return familyOf(k).model(k, c, grid, ccMajor, error);
}

}  // namespace rl
