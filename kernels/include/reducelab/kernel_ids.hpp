#pragma once
// Every kernel of the catalogue, named once: its id, the stem of its source (kernels/cuda/<stem>.cuh,
// whose text the Source view shows), how it is launched, and its __global__ template. The launch
// form decides the launch unit the build writes for it (kernels/CMakeLists.txt, from these lines):
//   Plain           KERNEL<Op, In, Acc, Trace>(in, out, n, tracer)
//   BlockTemplated  KERNEL<Block, Op, In, Acc, Trace>(in, out, n, tracer), for every block 32..1024
//   Transpose       the transpose family's instantiation (launch_transpose.cuh), from the descriptor
//   Matmul          the matmul family's instantiation (launch_matmul.cuh), from the descriptor
//   Custom          its own launch_<stem>.cu (k11-k14: other signatures; CUB: a library call)
// The descriptor of each id is in its family's folder (kernels/families/<family>/<family>_kernels.hpp).
// A new kernel: its source, its descriptor, and one line here (docs/adding-a-kernel.md).
// Keep one X(...) per line: the build reads them.
#define RL_KERNELS(X)                                                                   \
  X(K1, k01_interleaved_divergent, Plain, k1InterleavedDivergent)                      \
  X(K2, k02_interleaved_strided, Plain, k2InterleavedStrided)                          \
  X(K3, k03_sequential, Plain, k3Sequential)                                           \
  X(K4, k04_first_add_during_load, Plain, k4FirstAddDuringLoad)                        \
  X(K5, k05_unroll_last_warp, Plain, k5UnrollLastWarpVolatile)                         \
  X(K5s, k05_unroll_last_warp, Plain, k5UnrollLastWarpSync)                            \
  X(K6, k06_complete_unroll, BlockTemplated, k6CompleteUnroll)                         \
  X(K7, k07_grid_stride, BlockTemplated, k7GridStride)                                 \
  X(K8, k08_warp_shuffle, Plain, k8WarpShuffle)                                        \
  X(K9, k09_cooperative_groups, Plain, k9CooperativeGroups)                            \
  X(K10, k10_vector_loads, Plain, k10VectorLoads)                                      \
  X(K11, k11_atomic_final, Custom, k11AtomicFinal)                                     \
  X(K12, k12_last_block, Custom, k12LastBlock)                                         \
  X(K13, k13_tuned_single_pass, Custom, k13TunedSinglePass)                            \
  X(K14, k14_bulk_copy, Custom, k14BulkCopy)                                           \
  X(Auto, k13_tuned_single_pass, Custom, k13TunedSinglePass)                           \
  X(TrCopy, transpose, Transpose, transposeNaive)                                      \
  X(TrCopyShared, transpose, Transpose, transposeTiled)                                \
  X(TrNaive, transpose, Transpose, transposeNaive)                                     \
  X(TrTile, transpose, Transpose, transposeTiled)                                      \
  X(TrPadded, transpose, Transpose, transposeTiled)                                    \
  X(TrCoarse, transpose, Transpose, transposeTiled)                                    \
  X(TrFine, transpose, Transpose, transposeTiled)                                      \
  X(TrSwizzled, transpose, Transpose, transposeTiled)                                  \
  X(TrDiagonal, transpose, Transpose, transposeTiled)                                  \
  X(MmNaive, matmul, Matmul, matmulNaive)                                              \
  X(MmTiled, matmul, Matmul, matmulTiled)                                              \
  X(Cub, cub_reduce, Custom, cubReduce)

namespace rl {

#define RL_KERNEL_ENUMERATOR(ID, STEM, FORM, KERNEL) ID,
enum class KernelId { RL_KERNELS(RL_KERNEL_ENUMERATOR) };
#undef RL_KERNEL_ENUMERATOR
#define RL_KERNEL_COUNT_ONE(ID, STEM, FORM, KERNEL) +1
constexpr int kKernelIdCount = 0 RL_KERNELS(RL_KERNEL_COUNT_ONE);
#undef RL_KERNEL_COUNT_ONE

}  // namespace rl
