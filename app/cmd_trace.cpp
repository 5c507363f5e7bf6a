// `reducelab trace`: the per-step summary of one block's execution trace (active warps and
// lanes, bank-conflict degrees, wavefronts) - the numbers the trace views draw.
#include <cstdio>
#include <filesystem>

#include "cmd_usercode.hpp"
#include "commands.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/instrumented.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"
#include "interrupt.hpp"
#include "remote_client.hpp"

namespace rl::app {

namespace {

std::string lanesText(const StepSummary& s) {
  int lo = 33, hi = 0;
  for (int a : s.activeLanes)
    if (a > 0) lo = std::min(lo, a), hi = std::max(hi, a);
  if (hi == 0) return "0";
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

}  // namespace

Table traceTable(const TraceData& t, const TraceSummary& sum) {
  Table tab;
  tab.headers = {"step", "what", "warps with work", "lanes per active warp", "max conflict",
                 "smem wavefronts", "ideal", "sectors (1st it.)", "requests (1st it.)",
                 "sectors (all it.)", "requests (all it.)", "store sectors", "store requests"};
  tab.numeric = {true, false, true, true, true, true, true, true, true, true, true, true, true};
  for (const StepSummary& s : sum.steps) {
    tab.rows.push_back({std::to_string(s.step), s.label,
                        std::to_string(s.warpsWithWork) + "/" + std::to_string(t.numWarps()),
                        lanesText(s), s.maxDegree > 1 ? std::to_string(s.maxDegree) + "-way" : (s.maxDegree ? "none" : "-"),
                        std::to_string(s.wavefronts), std::to_string(s.idealWavefronts),
                        std::to_string(s.globalSectors), std::to_string(s.globalRequests),
                        std::to_string(s.totalLoadSectors), std::to_string(s.totalLoadRequests),
                        std::to_string(s.globalStoreSectors), std::to_string(s.globalStoreRequests)});
  }
  return tab;
}

nlohmann::json traceJson(const RunConfig& c, const TraceData& t, const TraceSummary& sum,
                         const std::string& source) {
  nlohmann::json steps = nlohmann::json::array();
  for (const StepSummary& s : sum.steps)
    steps.push_back({{"step", s.step}, {"kind", s.kind}, {"param", s.param}, {"label", s.label},
                     {"warps_with_work", s.warpsWithWork}, {"active_lanes", s.activeLanes},
                     {"max_degree", s.maxDegree}, {"wavefronts", s.wavefronts},
                     {"ideal_wavefronts", s.idealWavefronts},
                     {"load_wavefronts", s.loadWavefronts}, {"store_wavefronts", s.storeWavefronts},
                     {"ideal_load_wavefronts", s.idealLoadWavefronts},
                     {"ideal_store_wavefronts", s.idealStoreWavefronts},
                     {"global_sectors", s.globalSectors}, {"global_requests", s.globalRequests},
                     {"global_detail", s.kind == trace::kStepGridStride || s.maxIterations > 1 ? "first iteration" : "all"},
                     {"total_load_sectors", s.totalLoadSectors},
                     {"total_load_requests", s.totalLoadRequests},
                     {"total_load_bytes", s.totalLoadBytes},
                     {"global_store_sectors", s.globalStoreSectors},
                     {"global_store_requests", s.globalStoreRequests},
                     {"max_iterations", s.maxIterations}});
  // A family with parameters of its own (the matrices): them, with null for the other such
  // families' ones (one set of keys for every such trace), and the 2-D launch.
  nlohmann::json matrix = nullptr;
  if (const KernelInfo* k = findKernel(c.kernel); k && !familyOf(*k).parameters().empty()) {
    matrix = {{"family", std::string(familyOf(*k).name())}, {"block_x", t.header.blockX}, {"block_y", t.header.blockY},
              {"grid_x", t.header.gridX}, {"grid_y", t.header.gridY}};
    for (const FamilyParameter& p : allFamilyParameters()) {
      const FamilyParameter* own = ownParameter(c, p.key);
      matrix[p.key] = own ? nlohmann::json(own->used(*k, c)) : nlohmann::json(nullptr);
    }
  }
  return {{"source", source},
          {"instrumented", (t.header.flags & trace::kTraceInstrumented) != 0},
          {"matrix", matrix},
          {"trace_version", trace::kVersion},
          {"kernel", c.kernel},
          {"type", std::string(name(c.type))},
          {"accumulator", std::string(name(c.accType()))},
          {"op", std::string(name(c.op))},
          {"n", c.n},
          {"block", c.block},
          {"traced_block", t.header.tracedBlock},
          {"grid", t.header.gridSize},
          {"steps", steps},
          {"totals",
           {{"load_wavefronts", sum.loadWavefronts},
            {"store_wavefronts", sum.storeWavefronts},
            {"ideal_load_wavefronts", sum.idealLoadWavefronts},
            {"ideal_store_wavefronts", sum.idealStoreWavefronts},
            {"load_conflicts", sum.loadConflicts()},
            {"store_conflicts", sum.storeConflicts()},
            {"global_load_sectors", sum.totalLoadSectors},
            {"global_load_requests", sum.totalLoadRequests},
            {"global_load_bytes", sum.totalLoadBytes}}}};
}

int writeTraceOutput(const TraceOptions& o, const RunConfig& c, const TraceData& t, const std::string& source);

// The trace from a remote server's GPU (or its CPU model when it has none): the bytes its
// kernel wrote, checked on arrival. With --compare, against the CPU model computed here.
// `userSource`: the user's kernel (c.kernel "yours"), sent first for the server to compile.
int remoteTraceOf(const TraceOptions& o, const RunConfig& c, TraceData* t, std::string* source, const std::string& userSource) {
  remote::Hello hello;
  std::string err;
  std::unique_ptr<RemoteClient> client = connectRemote(o.remoteHost, o.remoteCommand, &hello, &err);
  if (!client) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return interrupted() ? kExitInterrupted : 1;
  }
  if (o.compare && !hello.device.available) {
    std::fprintf(stderr, "reducelab: error: --compare needs a GPU trace; %s has no GPU (%s)\n", hello.host.c_str(),
                 hello.device.unavailableReason.c_str());
    return 1;
  }
  if (!userSource.empty()) client->sendUserKernel(std::filesystem::path(o.kernelFile).filename().string(), userSource);
  const uint64_t id = client->queueTrace(c);
  for (;;) {
    client->waitForEvents(0.1);
    RemoteEvents ev = client->poll();
    for (const std::string& m : ev.service.messages) {
      std::fprintf(stderr, "remote: %s\n", m.c_str());
      if (m.rfind("request refused: ", 0) == 0) return 1;  // no trace will come
    }
    for (remote::TraceReply& r : ev.traces) {
      if (r.id != id) continue;
      client->close();
      if (!r.ok) {
        std::fprintf(stderr, "reducelab: error: %s\n", r.error.c_str());
        return 1;
      }
      *t = std::move(r.data);
      *source = r.source;
      if (o.compare) {
        TraceData model = modelTrace(c, t->header.gridSize, hello.device.ccMajor, &err);
        const double tol = !isFloat(c.accType()) ? 0.0 : c.accType() == ElemType::Float64 ? 1e-12 : 1e-5;
        const std::string diff = compareTraces(*t, model, tol);
        std::fprintf(stderr, "GPU trace vs CPU model: %s\n", diff.empty() ? "identical" : diff.c_str());
        if (!diff.empty()) return 3;
      }
      return 0;
    }
    if (ev.dropped && !interrupted()) {
      std::fprintf(stderr, "reducelab: error: %s\n", ev.dropped->c_str());
      return 1;
    }
    if (interrupted()) {
      std::fprintf(stderr, "reducelab: error: interrupted\n");
      return kExitInterrupted;
    }
  }
}

// --instrumented: the unmodified kernel's trace through the Compute Sanitizer patches, in this
// process, which subscribes before its first CUDA call (the tracer sees launches only then).
int instrumentedTrace(const TraceOptions& o, const RunConfig& c) {
  if (o.cpuModel || !o.remoteHost.empty() || !o.remoteCommand.empty()) {
    std::fprintf(stderr, "reducelab: error: --instrumented traces on this machine's GPU: leave out --cpu-model and --remote\n");
    return 2;
  }
  const bool cub = !findKernel(c.kernel)->traceable;
  if (o.compare && cub) {
    std::fprintf(stderr, "reducelab: error: --compare needs the hand-placed trace, and %s has no traced twin\n", c.kernel.c_str());
    return 2;
  }
  if (std::string e = instrumented::subscribe(); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  std::string err;
  std::unique_ptr<Backend> gpu = makeLocalGpuBackend(0);  // its engine is made after the subscription
  InstrumentedRun run;
  TraceRun hand;
  std::vector<uint8_t> handBytes;
  if (std::string no = gpu->onEngine([&](Engine& e) {
        run = e.runInstrumented(c, o.records);
        if (o.compare && run.run.ok) hand = e.runTracedToHost(c, &handBytes);
      });
      !no.empty()) {
    std::fprintf(stderr, "reducelab: error: --instrumented needs a GPU: %s\n",
                 gpu->device().available ? no.c_str() : gpu->device().unavailableReason.c_str());
    return 1;
  }
  if (!run.run.ok) {
    std::fprintf(stderr, "reducelab: error: %s\n", run.run.error.c_str());
    return 1;
  }
  instrumented::ConversionReport rep;
  const TraceData t = instrumented::toTraceData(run.raw, run.convert, &rep, &err);
  if (!t.valid()) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return 1;
  }
  std::fprintf(stderr, "instrumented: %s, %llu blocks x %u threads, %zu records of block %u, %d barrier phases; "
               "patching %.2f ms, unpatching %.2f ms; result %s\n",
               run.raw.function.c_str(), (unsigned long long)run.raw.gridBlocks(), run.raw.blockThreads(),
               run.raw.records.size(), run.raw.tracedBlock, rep.phases, run.raw.patchMs, run.raw.unpatchMs,
               run.run.result.text().c_str());
  for (const std::string& n : rep.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  if (!rep.overflow.empty()) std::fprintf(stderr, "warning: the trace is incomplete: %s\n", rep.overflow.c_str());
  int rc = 0;
  if (o.compare) {
    const TraceData handTrace = hand.ok ? TraceData::fromBuffer(handBytes.data(), handBytes.size(), &err) : TraceData{};
    if (!handTrace.valid()) {
      std::fprintf(stderr, "reducelab: error: the hand-placed trace: %s\n", hand.ok ? err.c_str() : hand.error.c_str());
      return 1;
    }
    // As reducelab_instrumented_tests compares (docs/instrumented-traces.md): grid-stride loops'
    // loads through their totals (the compiler unrolls the untraced loop); k13's loads in flight
    // make its lane detail differ by construction.
    const KernelInfo& k = *findKernel(c.kernel);
    // k12-k14: through the ticket's phase (the last block's finish is untraced in the twin).
    const bool lastBlock = k.finals.front() == FinalStage::LastBlock;
    instrumented::AccessProfile mine = instrumented::accessProfile(lastBlock ? instrumented::throughTheTicketPhase(t) : t),
                                theirs = instrumented::accessProfile(handTrace);
    if (lastBlock) std::fprintf(stderr, "compare: through the ticket's phase (the last block's finish is untraced in the twin)\n");
    if (k.shape == GridShape::GridStride) {
      instrumented::dropGlobalLoadDetail(&mine);
      instrumented::dropGlobalLoadDetail(&theirs);
      std::fprintf(stderr, "compare: the grid-stride loads through their totals (the untraced loop is unrolled)\n");
    }
    const int what = k.id == KernelId::K13 ? 2 | 4 : 7;
    if (k.id == KernelId::K13) std::fprintf(stderr, "compare: k13's banks and global totals (its loads in flight differ)\n");
    const std::string diff = instrumented::compareProfiles(mine, theirs, what, 12);
    std::fprintf(stderr, "instrumented vs hand-placed trace: %s\n",
                 diff.empty() ? "the same accesses per warp, banks and global-load totals" : ("\n" + diff).c_str());
    if (!diff.empty()) rc = 3;
  }
  RunConfig shown = c;
  shown.block = t.blockSize();  // CUB picks its own block
  const std::string source = "gpu (" + gpu->device().name + "), instrumented: Compute Sanitizer patches, " +
                             std::to_string(run.raw.records.size()) + " records";
  if (int w = writeTraceOutput(o, shown, t, source); w != 0) return w;
  return rc;
}

int runTrace(const TraceOptions& o) {
  if (!o.kernelFile.empty()) return runKernelFileTrace(o);
  RunConfig c;
  c.kernel = o.run.kernel;
  c.tracedBlock = o.tracedBlock;
  if (std::string e = toRunConfig(o.run, &c); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 2;
  }
  c.tracedBlock = o.tracedBlock;
  std::string err;
  if (!chooseOutputFormat(o.format, kWritesTables | kWritesRecords, &err)) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return 2;
  }
  if (std::string e = validate(c, nullptr); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 2;
  }
  if (o.instrumented) {
    if (!o.out.empty())
      if (std::string e = checkOutputTarget(o.out, o.force); !e.empty()) {
        std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
        return 1;
      }
    return instrumentedTrace(o, c);
  }
  if (!findKernel(c.kernel)->traceable) {
    std::fprintf(stderr, "reducelab: error: cub is a library: it has no traced twin to show (--instrumented traces it)\n");
    return 2;
  }
  if (!o.out.empty())
    if (std::string e = checkOutputTarget(o.out, o.force); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
  const bool remoteTrace = !o.remoteHost.empty() || !o.remoteCommand.empty();
  if (remoteTrace && o.cpuModel) {
    std::fprintf(stderr, "reducelab: error: --cpu-model traces here; --remote traces on the remote machine: give one\n");
    return 2;
  }
  std::string source;
  TraceData t;
  if (remoteTrace) {
    if (int rc = remoteTraceOf(o, c, &t, &source, ""); rc != 0) return rc;
    return writeTraceOutput(o, c, t, source);
  }
  // The first source that has it: this machine's GPU (through the measurement service), unless
  // --cpu-model; the CPU model (the grid the engine would use on the assumed H200) otherwise.
  std::unique_ptr<Backend> gpu = o.cpuModel ? nullptr : makeLocalGpuBackend(0);
  std::unique_ptr<Backend> model = makeCpuModelBackend(assumedH200(), "");
  Backend* from = firstTraceSource({gpu.get(), model.get()}, c, &err);
  const TraceResult r = from ? traceNow(*from, c) : TraceResult{};
  if (!r.ok) {
    std::fprintf(stderr, "reducelab: error: %s\n", (r.error.empty() ? err : r.error).c_str());
    return 1;
  }
  t = r.data;
  source = r.gpuWritten ? "gpu (" + gpu->device().name + ")" : "cpu-model";
  if (r.gpuWritten && o.compare) {
    TraceData cpu = modelTrace(c, t.header.gridSize, gpu->device().ccMajor, &err);
    // Values: exact for integers; a different combination order (cg::reduce) for floats.
    const double tol = !isFloat(c.accType()) ? 0.0 : c.accType() == ElemType::Float64 ? 1e-12 : 1e-5;
    const std::string diff = compareTraces(t, cpu, tol);
    std::fprintf(stderr, "GPU trace vs CPU model: %s\n", diff.empty() ? "identical" : diff.c_str());
    if (!diff.empty()) return 3;
  }
  if (!t.valid()) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return 1;
  }
  return writeTraceOutput(o, c, t, source);
}

int writeTraceOutput(const TraceOptions& o, const RunConfig& c, const TraceData& t, const std::string& source) {
  const TraceSummary sum = summarize(t);
  const OutputFormat& format = *chooseOutputFormat(o.format, kWritesTables | kWritesRecords, nullptr);  // checked in runTrace
  std::string text;
  if (format.writes & kWritesRecords) {
    text = format.records(traceJson(c, t, sum, source));
  } else if (!format.prose) {  // the data alone
    text = format.table(traceTable(t, sum));
  } else {
    char head[512];
    const KernelInfo* kp = findKernel(c.kernel);  // none for the student's kernel (--kernel-file)
    const std::string familyHead = kp ? familyOf(*kp).traceLine(*kp, c, t.header, source) : std::string();
    if (!familyHead.empty())
      std::snprintf(head, sizeof head, "%s", familyHead.c_str());
    else
    std::snprintf(head, sizeof head,
                  "Trace of block %u of %u: kernel %s, %d threads, %s %s (accumulator %s), N = %s, from the %s\n",
                  t.header.tracedBlock, t.header.gridSize, c.kernel.c_str(), c.block,
                  std::string(name(c.op)).c_str(), std::string(name(c.type)).c_str(),
                  std::string(name(c.accType())).c_str(), formatCount(c.n).c_str(), source.c_str());
    // The terminal's lines sit tight around the table; a document's need blank lines to end it.
    const char* gap = format.terminal ? "" : "\n";
    text = head + (gap + format.table(traceTable(t, sum))) + gap;
    std::snprintf(head, sizeof head,
                  "shared-memory wavefronts: loads %d (ideal %d, %d from bank conflicts), stores %d "
                  "(ideal %d, %d from bank conflicts)\n",
                  sum.loadWavefronts, sum.idealLoadWavefronts, sum.loadConflicts(),
                  sum.storeWavefronts, sum.idealStoreWavefronts, sum.storeConflicts());
    text += head;
    std::snprintf(head, sizeof head,
                  "global loads of the block, every iteration: %llu requests, %llu sectors of 32 B, "
                  "%llu bytes (grid-stride rows' 1st it. columns show the first iteration only)\n",
                  (unsigned long long)sum.totalLoadRequests, (unsigned long long)sum.totalLoadSectors,
                  (unsigned long long)sum.totalLoadBytes);
    text += head;
  }
  if (o.out.empty()) std::fputs(text.c_str(), stdout);
  else if (std::string e = writeTextAtomic(o.out, text); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  return 0;
}

}  // namespace rl::app
