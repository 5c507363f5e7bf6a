#include "remote_server.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "reducelab/cuda_device.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/family.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/usercode/user_kernel_backend.hpp"
#include "cmd_usercode.hpp"
#include "reducelab/version.hpp"

namespace rl::app {

namespace {

using Clock = std::chrono::steady_clock;

// Writes all of `bytes`; false when the client is gone (broken pipe, closed).
bool writeAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Reads requests on its own thread, so the loop that sends records never waits for the client.
class RequestReader {
 public:
  explicit RequestReader(int fd) : fd_(fd) {
    if (::pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
    thread_ = std::thread([this] { loop(); });
  }
  ~RequestReader() {
    if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
    thread_.join();
    for (int fd : wake_)
      if (fd >= 0) ::close(fd);
  }
  // Frames so far; *ended: the client closed its end; *error: it sent something unreadable.
  std::vector<remote::Frame> take(bool* ended, std::string* error) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<remote::Frame> out(std::make_move_iterator(frames_.begin()), std::make_move_iterator(frames_.end()));
    frames_.clear();
    *ended = ended_;
    *error = error_;
    return out;
  }
  bool ended() {
    std::lock_guard<std::mutex> lock(mutex_);
    return ended_ || std::any_of(frames_.begin(), frames_.end(), [](const remote::Frame& f) { return f.type == "bye"; });
  }
  void waitForInput(std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, limit, [&] { return !frames_.empty() || ended_; });
  }

 private:
  void loop() {
    remote::FrameReader reader;
    std::vector<char> buf(64 * 1024);
    for (;;) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (::poll(fds, wake_[0] >= 0 ? 2 : 1, -1) < 0) {
        if (errno == EINTR) continue;
        return finish("");
      }
      if (fds[1].revents) return;  // the server is stopping
      const ssize_t n = ::read(fd_, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return finish("");
      reader.feed(buf.data(), size_t(n));
      for (;;) {
        remote::Frame f;
        std::string err;
        const auto st = reader.next(&f, &err);
        if (st == remote::FrameReader::Status::NeedMore) break;
        if (st == remote::FrameReader::Status::Error) return finish(err);
        std::lock_guard<std::mutex> lock(mutex_);
        if (frames_.size() >= kMaxWaiting) {  // a client that only sends: bounded, refused
          ended_ = true;
          error_ = "more than " + std::to_string(kMaxWaiting) + " requests waiting";
          cv_.notify_all();
          return;
        }
        frames_.push_back(std::move(f));
        cv_.notify_all();
      }
    }
  }
  void finish(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
    error_ = error;
    cv_.notify_all();
  }

  static constexpr size_t kMaxWaiting = 4096;
  int fd_;
  int wake_[2] = {-1, -1};
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<remote::Frame> frames_;
  bool ended_ = false;
  std::string error_;
  std::thread thread_;
};

constexpr size_t kMaxQueuedJobs = 10000;

// A check of the user's kernel asked by the client: `reducelab check` on a thread of its own, its
// runs in a worker process of its own, CUB and our kernels beside it on the server's engine. Its
// steps wait here as frames until the server's loop sends them. Destroyed before the service.
class ServerCheck {
 public:
  ~ServerCheck() { stop(); }
  bool running() const { return thread_.joinable() && !finished_.load(); }
  void start(usercode::CheckRequest q, double timeoutSeconds, MeasurementService& service) {
    stop();
    cancel_ = false;
    finished_ = false;
    usercode::WorkerOptions w = usercode::workerOptionsFromEnvironment();
    w.timeoutSeconds = timeoutSeconds;
    w.cancelled = [this] { return cancel_.load(); };
    worker_ = std::make_unique<usercode::KernelWorker>(w);
    thread_ = std::thread([this, q = std::move(q), &service] {
      usercode::CheckHooks hooks;
      hooks.cancelled = [this] { return cancel_.load(); };
      hooks.onCompiled = [this, &q](const usercode::CheckReport& r) {
        usercode::CheckEvent e;
        e.kind = usercode::CheckEvent::Kind::Compiled;
        std::string ignored;
        e.total = int(usercode::planBattery(r.contract, q.battery, &ignored).size());
        e.device = r.device.name;
        e.diagnostics = r.diagnostics;
        push(e);
      };
      hooks.onCase = [this](const usercode::CaseResult& c) {
        usercode::CheckEvent e;
        e.kind = usercode::CheckEvent::Kind::Case;
        e.caseResult = c;
        push(e);
      };
      hooks.onHazards = [this](const usercode::HazardCheck& h) {
        usercode::CheckEvent e;
        e.kind = usercode::CheckEvent::Kind::Hazards;
        e.hazards = h;
        push(e);
      };
      hooks.onTiming = [this](const usercode::TimingCheck& t) {
        usercode::CheckEvent e;
        e.kind = usercode::CheckEvent::Kind::Timing;
        e.timing = t;
        push(e);
      };
      hooks.measureOthers = [this, &service](const RunConfig& base) {
        const EngineCall onEngine = [&service](const std::function<void(Engine&)>& fn) {
          std::string why;
          service.callOnEngine([&](Engine* engine) {
            if (engine) fn(*engine);
            else why = service.engineError();
          });
          return why;
        };
        return measureCompanions(onEngine, base, [this] { return cancel_.load(); });
      };
      usercode::CheckEvent done;
      done.kind = usercode::CheckEvent::Kind::Done;
      try {
        done.report = usercode::runCheck(q, *worker_, hooks);
      } catch (const std::exception& ex) {  // said to the client, never std::terminate
        done.report.status = usercode::CheckStatus::Environment;
        done.report.error = std::string("the check stopped on the server: ") + ex.what();
      }
      worker_->stop();
      push(done);
      finished_ = true;
    });
  }
  void cancel() {
    cancel_ = true;
    if (worker_) worker_->cancel();
  }
  // The frames of the steps so far, in order.
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    out.swap(frames_);
    return out;
  }

 private:
  void push(const usercode::CheckEvent& e) {
    std::string frame = usercode::encodeCheckEvent(e);
    std::lock_guard<std::mutex> lock(mutex_);
    frames_.push_back(std::move(frame));
  }
  void stop() {
    cancel();
    if (thread_.joinable()) thread_.join();
    worker_.reset();
  }
  std::thread thread_;
  std::atomic<bool> cancel_{false}, finished_{false};
  std::unique_ptr<usercode::KernelWorker> worker_;
  std::mutex mutex_;
  std::vector<std::string> frames_;
};

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace

int serveRemote(int inFd, int outFd, MeasurementService::EngineFactory makeEngine, const DeviceInfo& device) {
  MeasurementService service(std::move(makeEngine));
  ServerCheck check;  // after the service: stopped and joined before it goes
  RequestReader requests(inFd);
  remote::Hello hello;
  hello.version = versionString();
  hello.commit = gitCommit();
  hello.host = hostName();
  hello.device = device;
  // The hello carries the peaks: they are read (cached or measured) before the first job. A
  // server without an engine says so at once.
  ServiceEvents early;
  const auto helloDeadline = Clock::now() + std::chrono::minutes(5);
  for (;;) {
    ServiceEvents ev = service.poll();
    for (std::string& m : ev.messages) early.messages.push_back(std::move(m));
    if (ev.peaks) {
      hello.peaks = *ev.peaks;
      break;
    }
    if (!service.engineError().empty()) {
      hello.device.available = false;
      if (hello.device.unavailableReason.empty()) hello.device.unavailableReason = service.engineError();
      hello.peaks.theoreticalGBs = 0;
      hello.peaks.source = "not measured";
      break;
    }
    // The client left (or said bye) before the peaks were known: what it asked before leaving is
    // still answered, in order, by the loop below (a refused check's answer included), so a client
    // that asks and quits at once is not left without its answer; the hello then has no measured peak.
    if (requests.ended()) break;
    if (Clock::now() > helloDeadline) {
      std::fprintf(stderr, "reducelab serve: the bandwidth peaks did not arrive within 5 minutes\n");
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (hello.device.available && hello.peaks.theoreticalGBs == 0)
    hello.peaks.theoreticalGBs = hello.device.theoreticalPeakGBs();
  const bool haveEngine = hello.device.available;
  if (!writeAll(outFd, remote::encodeFrame(remote::helloJson(hello)))) return 0;  // the client left
  for (std::string& m : early.messages)
    if (!writeAll(outFd, remote::encodeFrame(remote::textMessage(m)))) return 0;

  std::map<uint64_t, uint64_t> traceIds;  // the service's id -> the client's
  // The user's kernel, once sent (user_kernel): its runs, sweeps and traces go to its own worker.
  std::unique_ptr<Backend> yours;
  std::map<uint64_t, uint64_t> yoursTraceIds;
  const std::string noKernelYet = "no kernel of yours was sent (user_kernel comes first)";
  Peaks peaks = hello.peaks;
  auto send = [&](const nlohmann::json& body, const std::vector<uint8_t>& payload = {}) {
    return writeAll(outFd, remote::encodeFrame(body, payload));
  };
  for (;;) {
    bool ended = false;
    std::string readError;
    std::vector<remote::Frame> frames = requests.take(&ended, &readError);
    bool bye = false;
    for (const remote::Frame& f : frames) {
      std::string err;
      if (f.type == "run") {
        RunConfig c;
        std::string label;
        RunKind kind = RunKind::Single;
        if ((err = remote::decodeRunRequest(f, &c, &label, &kind)).empty()) {
          if (service.pendingJobs() >= kMaxQueuedJobs || (yours && yours->pendingJobs() >= kMaxQueuedJobs))
            err = "more than " + std::to_string(kMaxQueuedJobs) + " runs queued";
          else if (runsUserSource(c.kernel)) yours ? yours->queueRun(c, label, kind) : void(err = noKernelYet);
          else service.queueRun(c, label, kind);
        }
      } else if (f.type == "sweep") {
        SweepSpec s;
        if ((err = remote::decodeSweepRequest(f, &s)).empty()) {
          if (s.kernels.size() == 1 && runsUserSource(s.kernels.front())) yours ? yours->queueSweep(s) : void(err = noKernelYet);
          else service.queueSweep(s);
        }
      } else if (f.type == "cancel_sweep") {
        service.cancelSweep();
        if (yours) yours->cancelSweep();
      } else if (f.type == "user_kernel") {
        std::string file, source;
        if ((err = remote::decodeUserKernelRequest(f, &file, &source)).empty()) {
          usercode::UserKernelSource src;
          src.source = std::move(source);
          src.file = std::move(file);
          src.peaks = peaks;
          src.worker = usercode::workerOptionsFromEnvironment();
          yours = usercode::makeUserKernelBackend(std::move(src));
          yoursTraceIds.clear();
        }
      } else if (f.type == "check") {
        usercode::CheckRequest q;
        double timeout = 10;
        if (check.running()) {
          err = "a check is already running";  // its events go on; the client asks one at a time
        } else if (std::string bad = usercode::decodeCheckRequest(f, &q, &timeout); !bad.empty()) {
          // Refused, but answered as a check that did not run, so the client's check ends.
          usercode::CheckEvent done;
          done.kind = usercode::CheckEvent::Kind::Done;
          done.report.status = usercode::CheckStatus::Usage;
          done.report.error = "the server refused the check: " + bad;
          if (!writeAll(outFd, usercode::encodeCheckEvent(done))) return 0;
        } else {
          check.start(std::move(q), timeout, service);
        }
      } else if (f.type == "cancel_check") {
        check.cancel();  // and what it waits for on the engine: CUB and our kernels beside it
        if (check.running()) service.cancelRuns();
      } else if (f.type == "trace") {
        uint64_t id = 0;
        RunConfig c;
        if ((err = remote::decodeTraceRequest(f, &id, &c)).empty()) {
          if (runsUserSource(c.kernel)) {
            if (yours) yoursTraceIds[yours->queueTrace(c, {})] = id;
            else err = noKernelYet;
          } else if (haveEngine) {
            traceIds[service.queueTrace(c, nullptr, 0)] = id;
          } else {  // the CPU model, with the grid the engine would use on the assumed H200
            std::string modelError;
            const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &modelError);
            if (t.valid() && !send(remote::traceMessage(id, c, true, "", "cpu-model"), t.toBuffer())) return 0;
            if (!t.valid() && !send(remote::traceMessage(id, c, false, modelError, "cpu-model"))) return 0;
          }
        }
      } else if (f.type == "resources") {
        RunConfig c;
        if ((err = remote::decodeResourcesRequest(f, &c)).empty()) service.queueResources(c);
      } else if (f.type == "peaks") {
        bool remeasure = false;
        if ((err = remote::decodePeaksRequest(f, &remeasure)).empty()) service.queuePeaks(remeasure);
      } else if (f.type == "bye") {
        bye = true;
      } else {
        err = "a '" + f.type + "' message is not a request";
      }
      // A well-framed request that makes no sense: refused, the session goes on.
      if (!err.empty() && !send(remote::textMessage("request refused: " + err))) return 0;
    }
    if (!readError.empty()) {
      std::fprintf(stderr, "reducelab serve: %s\n", readError.c_str());
      send(remote::errorMessage("the server refuses the stream: " + readError));
      return 1;
    }
    if (bye || ended) {  // the service's destructor cancels what runs; a check waiting on the engine must not wait for the queue
      check.cancel();
      service.cancelSweep();
      service.cancelRuns();
      return 0;
    }

    ServiceEvents ev = service.poll();
    if (ev.peaks) peaks = *ev.peaks;
    for (const Measurement& m : ev.measurements)
      if (!send(remote::measurementMessage(m, hello.device, peaks))) return 0;
    for (const auto& [axis, m] : ev.sweepRows)
      if (!send(remote::sweepRowMessage(axis, m, hello.device, peaks))) return 0;
    for (const std::string& m : ev.messages)
      if (!send(remote::textMessage(m))) return 0;
    if (ev.sweep && !send(remote::sweepProgressMessage(*ev.sweep))) return 0;
    if (ev.resources && !send(remote::resourcesMessage(*ev.resources))) return 0;
    if (ev.peaks && !send(remote::peaksMessage(*ev.peaks))) return 0;
    for (const TraceDone& t : ev.traces) {
      const auto it = traceIds.find(t.id);
      if (it == traceIds.end()) continue;
      const uint64_t id = it->second;
      traceIds.erase(it);
      const std::string source = "gpu (" + hello.device.name + ")";
      // Checked here too: the client must never be sent a buffer its reader would refuse.
      std::string err = t.run.ok ? "" : t.run.error;
      if (t.run.ok && !TraceData::fromBuffer(t.hostBytes.data(), t.hostBytes.size(), &err).valid() && err.empty())
        err = "no trace recorded";
      if (t.run.ok && t.hostBytes.size() != trace::bufferBytes(uint32_t(t.config.block)))
        err = "the trace buffer has an unexpected size";
      const bool ok = err.empty();
      if (!send(remote::traceMessage(id, t.config, ok, err, source), ok ? t.hostBytes : std::vector<uint8_t>{}))
        return 0;
    }
    for (const std::string& frame : check.take())
      if (!writeAll(outFd, frame)) return 0;
    if (yours) {  // the user's kernel: its answers as the service's
      BackendEvents y = yours->poll();
      for (const Measurement& m : y.service.measurements)
        if (!send(remote::measurementMessage(m, hello.device, peaks))) return 0;
      for (const auto& [axis, m] : y.service.sweepRows)
        if (!send(remote::sweepRowMessage(axis, m, hello.device, peaks))) return 0;
      for (const std::string& m : y.service.messages)
        if (!send(remote::textMessage(m))) return 0;
      for (const std::string& r : y.refusals)
        if (!send(remote::textMessage("request refused: " + r))) return 0;
      if (y.service.sweep && !send(remote::sweepProgressMessage(*y.service.sweep))) return 0;
      for (const TraceResult& t : y.traces) {
        const auto it = yoursTraceIds.find(t.id);
        if (it == yoursTraceIds.end()) continue;
        const uint64_t id = it->second;
        yoursTraceIds.erase(it);
        const std::vector<uint8_t> bytes = t.ok ? t.data.toBuffer() : std::vector<uint8_t>{};
        if (!send(remote::traceMessage(id, t.config, t.ok, t.error, "gpu (" + hello.device.name + "), instrumented"), bytes))
          return 0;
      }
    }
    requests.waitForInput(std::chrono::milliseconds(2));
  }
}

int runServe(const ServeOptions& o) {
  if (!o.stdio) {
    std::fprintf(stderr, "reducelab: error: serve needs --stdio (it talks through its standard input and output, "
                         "as `ssh HOST reducelab serve --stdio`; it never listens on a port)\n");
    return 2;
  }
  // The protocol owns stdout: anything else a library prints goes to stderr instead.
  const int out = ::dup(STDOUT_FILENO);
  if (out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fprintf(stderr, "reducelab serve: cannot set up the standard output\n");
    return 1;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a client that left shows as a failed write
  // Ctrl+C in the app's terminal reaches its whole process group, this server included: the app
  // decides (it cancels the sweep); the server ends when its input does.
  ::signal(SIGINT, SIG_IGN);
  const DeviceInfo device = queryDevice(0);
  const int ordinal = device.ordinal;
  return serveRemote(STDIN_FILENO, out, [ordinal](std::string* err) { return Engine::create(ordinal, err); }, device);
}

}  // namespace rl::app
