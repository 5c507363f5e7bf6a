#pragma once
// The session's results: append-only (rows never change or move once in), so views keep row
// indices and cache what they formatted; clear() starts a new generation that views notice.
// Filled from the measurement service's deliveries on the GUI thread.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "reducelab/record.hpp"

namespace rl {

class ResultsStore {
 public:
  void append(Measurement m) {
    rows_.push_back(std::move(m));
    basis_ = comparisonBasisAfter(basis_, firstTimed_ < rows_.size() ? &rows_[firstTimed_] : nullptr, rows_.back());
    if (firstTimed_ == SIZE_MAX && hasTimeBasis(rows_.back())) firstTimed_ = rows_.size() - 1;
  }
  // Nothing is lost by a click: the rows cleared last (a loaded recording's, say) can come back.
  void clear() {
    if (!rows_.empty()) cleared_ = std::move(rows_);
    rows_.clear();
    ++generation_;
    rebase();
  }
  size_t restorable() const { return cleared_.size(); }
  // The cleared rows back, before any measured since.
  void restoreCleared() {
    if (cleared_.empty()) return;
    cleared_.insert(cleared_.end(), std::make_move_iterator(rows_.begin()), std::make_move_iterator(rows_.end()));
    rows_ = std::move(cleared_);
    cleared_.clear();
    ++generation_;
    rebase();
  }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  const Measurement& operator[](size_t i) const { return rows_[i]; }
  const Measurement& back() const { return rows_.back(); }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  auto rbegin() const { return rows_.rbegin(); }
  auto rend() const { return rows_.rend(); }
  const std::vector<Measurement>& rows() const { return rows_; }
  operator const std::vector<Measurement>&() const { return rows_; }  // for table and figure builders
  uint64_t generation() const { return generation_; }
  // The time every number of these rows is compared by (headline, live plot, table, exports),
  // kept as rows arrive: one basis per screen, at no per-frame cost.
  TimeBasis basis() const { return basis_; }

 private:
  void rebase() {
    basis_ = comparisonBasis(rows_);
    firstTimed_ = SIZE_MAX;
    for (size_t i = 0; i < rows_.size() && firstTimed_ == SIZE_MAX; ++i)
      if (hasTimeBasis(rows_[i])) firstTimed_ = i;
  }
  std::vector<Measurement> rows_;
  std::vector<Measurement> cleared_;
  uint64_t generation_ = 0;
  TimeBasis basis_ = TimeBasis::Kernel;
  size_t firstTimed_ = SIZE_MAX;
};

// Developer option (--dev-fill-results N): N synthetic records so a view's per-frame cost can be
// measured at scale without a GPU. Their timings are made up and their label says so; never
// used in normal runs.
std::vector<Measurement> syntheticResults(size_t n, uint64_t seed = 1);

}  // namespace rl
