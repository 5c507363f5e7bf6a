// Kernel 9: cooperative groups. The same structure as kernel 8, written with
// cooperative_groups: the block and its 32-thread tiles are objects, and cg::reduce picks the
// warp reduction (shuffles, or redux.sync where the GPU has it) for the type and operator.
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "k08_warp_shuffle.cuh"

namespace rl::kernels {

namespace cg = cooperative_groups;

template <class Op, class T> struct CgOperator;
template <class T> struct CgOperator<SumOp, T> { using type = cg::plus<T>; };
template <class T> struct CgOperator<MinOp, T> { using type = cg::less<T>; };
template <class T> struct CgOperator<MaxOp, T> { using type = cg::greater<T>; };

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k9CooperativeGroups(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                                    Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  using CgOp = typename CgOperator<Op, TAcc>::type;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  TAcc* warpSums = sharedArray<TAcc>();
  tr.begin(warpSums, in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  TAcc v = pairGridStrideSum<Op, TIn, TAcc>(in, n, tr);  // kernel 8's loop

  v = cg::reduce(warp, v, CgOp());
  tr.step(kStepWarpReduce, 32);
  tr.lane(v);
  tr.step(kStepWarpStore, 0, sharedStore<TAcc>());
  if (warp.thread_rank() == 0) {
    tr.storeShared(0, &warpSums[warp.meta_group_rank()], v);
    tr.lane(v);
  }
  block.sync();

  if (warp.meta_group_rank() == 0) {
    const unsigned lane = warp.thread_rank();
    tr.step(kStepWarpLoad, 0, sharedLoad<TAcc>());
    v = lane < warp.meta_group_size() ? tr.loadShared(0, &warpSums[lane]) : Op::template identity<TAcc>();
    tr.lane(v);
    v = cg::reduce(warp, v, CgOp());
    tr.step(kStepWarpReduce, 32);
    tr.lane(v);
  }
  storeBlockResult(v, out, tr);
  tr.end();
}

}  // namespace rl::kernels
