// `reducelab multi` in a build without CUDA: the algorithm model still animates (kernels/core),
// nothing can be measured.
#include "reducelab/multi.hpp"

namespace rl::multi {

bool builtWithNccl() { return false; }

Report measure(const Options&, const std::vector<std::string>& argv) {
  Report r;
  r.argv = argv;
  r.error = "measuring across GPUs needs NVIDIA GPUs and a build with CUDA (this one was built without the CUDA "
            "Toolkit); the ring and tree model (--model) works without";
  return r;
}

}  // namespace rl::multi
