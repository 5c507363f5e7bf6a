#include "reducelab/backend.hpp"

#include <chrono>
#include <map>
#include <thread>

namespace rl {

Backend* firstTraceSource(const std::vector<Backend*>& sources, const RunConfig& c, std::string* why) {
  if (why) why->clear();
  for (Backend* b : sources) {
    if (!b) continue;
    const std::string no = b->tracesNot(c);
    if (no.empty()) return b;
    if (why && why->empty()) *why = no;
  }
  return nullptr;
}

std::vector<Measurement> measureAll(Backend& b, const std::vector<RunConfig>& configs, const RunInputs& inputs,
                                    const std::function<void(const Measurement&)>& onResult,
                                    const std::function<bool()>& cancelled) {
  std::vector<Measurement> out;
  for (const RunConfig& c : configs) b.queueRun(c, "", RunKind::Single, inputs);
  bool cancelSent = false;
  while (out.size() < configs.size()) {
    BackendEvents ev = b.poll();
    for (Measurement& m : ev.service.measurements) {
      if (onResult) onResult(m);
      out.push_back(std::move(m));
    }
    if (ev.lost) break;
    if (!ev.refusals.empty() && !b.busy() && ev.service.measurements.empty()) break;  // refused: nothing will come
    if (cancelled && cancelled() && !cancelSent) {
      b.cancelRuns();
      cancelSent = true;
    }
    if (cancelSent && !b.busy()) break;
    if (out.size() < configs.size()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return out;
}

std::vector<Measurement> sweepAll(Backend& b, const SweepSpec& s,
                                  const std::function<void(const Measurement&, int, int)>& onRow,
                                  const std::function<bool()>& cancelled) {
  std::vector<Measurement> rows;
  b.queueSweep(s);
  bool cancelSent = false;
  for (;;) {
    BackendEvents ev = b.poll();
    int done = 0, total = 0;
    if (ev.service.sweep) done = ev.service.sweep->done, total = ev.service.sweep->total;
    for (auto& [axis, m] : ev.service.sweepRows) {
      rows.push_back(std::move(m));
      if (onRow) onRow(rows.back(), int(rows.size()), total);
    }
    if ((ev.service.sweep && ev.service.sweep->finished) || ev.lost || !ev.refusals.empty()) break;
    (void)done;
    if (cancelled && cancelled() && !cancelSent) {
      b.cancelSweep();
      cancelSent = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return rows;
}

TraceResult traceNow(Backend& b, const RunConfig& c, double seconds) {
  const uint64_t id = b.queueTrace(c, {});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    BackendEvents ev = b.poll();
    for (TraceResult& t : ev.traces)
      if (t.id == id) return std::move(t);
    if (ev.lost) {
      TraceResult r;
      r.config = c;
      r.error = *ev.lost;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  TraceResult r;
  r.config = c;
  r.error = "no trace within " + std::to_string(int(seconds)) + " s";
  return r;
}

}  // namespace rl
