// Every registered family and every kernel has its pieces (docs/adding-a-family.md and
// docs/adding-a-kernel.md list them): a family without kernels, names, a validation that accepts
// its own kernels' defaults, a geometry, a CPU model or a sweep rule fails here, and so does a
// kernel without its source, notes, descriptor or family.
#include <gtest/gtest.h>

#include <set>

#include "reducelab/family.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"

using namespace rl;

TEST(Families, EachRegisteredFamilyHasItsPieces) {
  std::set<std::string_view> names, lists;
  for (const KernelFamily* f : families()) {
    SCOPED_TRACE(std::string(f->name()));
    EXPECT_FALSE(f->name().empty());
    EXPECT_FALSE(f->heading().empty());
    EXPECT_TRUE(names.insert(f->name()).second) << "two families of one name";
    EXPECT_TRUE(lists.insert(f->listName()).second) << "two families answer --kernel " << f->listName();
    EXPECT_EQ(&familyOf(f->id()), f);
    EXPECT_EQ(familyByListName(f->listName()), f);
    // It sweeps some axis, and says why for each it does not.
    int swept = 0;
    for (SweepAxis a : {SweepAxis::Block, SweepAxis::N, SweepAxis::Type, SweepAxis::Kernel, SweepAxis::Tile, SweepAxis::Size})
      swept += f->sweepRefusal(a).empty();
    EXPECT_GT(swept, 0);
    // Its kernels: at least one; each, as the GUI picks it, is a valid run with a plan, amounts
    // and (traceable ones) a CPU-model trace.
    int kernels = 0;
    for (const KernelInfo& k : catalogue()) {
      if (&familyOf(k) != f) continue;
      ++kernels;
      SCOPED_TRACE(std::string(k.key));
      RunConfig c;
      c.kernel = std::string(k.key);
      c.n = 100003;
      c.block = std::max(256, k.minBlock);
      f->adopt(k, c, nullptr);
      f->normalize(k, c);
      ASSERT_EQ(validate(c, nullptr), "");
      const Geometry g = f->geometry(k, c, 132 * 4);
      EXPECT_GT(g.grid(), 0u);
      EXPECT_GT(g.block, 0u);
      EXPECT_GT(f->bytesMoved(k, c), 0.0);
      EXPECT_GT(f->inputElements(k, c), 0u);
      EXPECT_GT(f->chainBound(k, g, c.n), 0u);
      EXPECT_FALSE(f->shape(k, c).empty());
      if (f->measuresFlops()) EXPECT_GT(f->flopsDone(k, c), 0.0);
      if (!k.traceable) continue;
      std::string err;
      const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err);
      EXPECT_TRUE(t.valid()) << err;
      EXPECT_EQ(checkTraceContent(t), "");
    }
    EXPECT_GT(kernels, 0) << "a family with no kernel in the catalogue";
  }
}

TEST(Families, EveryKernelBelongsToARegisteredFamilyAndHasItsSourceAndNotes) {
  for (const KernelInfo& k : catalogue()) {
    SCOPED_TRACE(std::string(k.key));
    bool registered = false;
    for (const KernelFamily* f : families()) registered = registered || f->id() == k.family;
    EXPECT_TRUE(registered) << "its family is not in families.cpp";
    EXPECT_TRUE(familyOf(k).descriptorComplete(k));
    EXPECT_FALSE(kernelSource(k).empty()) << k.sourceFile << " is not embedded (kernels/cuda/<stem>.cuh)";
    EXPECT_FALSE(kernelNotes(k).empty()) << "assets/kernels/" << k.key << ".md is missing";
  }
}
