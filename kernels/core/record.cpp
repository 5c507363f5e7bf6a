#include "reducelab/record.hpp"

namespace rl {

void fillLadderSpeedups(std::vector<Measurement>& rows) {
  const Measurement* first = nullptr;
  const Measurement* prev = nullptr;
  for (Measurement& m : rows) {
    if (!m.ok) continue;
    if (!first) first = &m;
    m.stepSpeedup = prev && m.kernel.median > 0 ? prev->kernel.median / m.kernel.median : 1.0;
    m.cumulativeSpeedup = m.kernel.median > 0 ? first->kernel.median / m.kernel.median : 1.0;
    prev = &m;
  }
}

}  // namespace rl
