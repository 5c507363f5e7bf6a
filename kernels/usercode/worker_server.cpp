// `reducelab check-worker`: the process that runs user kernels (worker.hpp). It answers one
// request at a time; after a run that lost the CUDA context it exits, and the parent starts a
// fresh worker for the next request.
#include <unistd.h>

#include <cerrno>

#include "reducelab/instrumented.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::usercode {

namespace {

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

}  // namespace

int serveWorker(int inFd, int outFd) {
  // The Compute Sanitizer sees a process's launches only when it subscribed before the first CUDA
  // call: so before workerDevice() makes the context. Without the library the worker runs as ever.
  const std::string tracer = instrumented::subscribe();
  const DeviceInfo device = workerDevice();
  if (!writeAll(outFd, remote::encodeFrame(workerHelloJson(device, tracer)))) return 1;
  if (!device.available) return 1;  // the hello said why; there is nothing to run on
  remote::FrameReader reader;
  char buffer[1 << 16];
  for (;;) {
    remote::Frame f;
    std::string error;
    const auto status = reader.next(&f, &error);
    if (status == remote::FrameReader::Status::Error) {
      writeAll(outFd, remote::encodeFrame(remote::errorMessage("the worker refuses the stream: " + error)));
      return 2;
    }
    if (status == remote::FrameReader::Status::NeedMore) {
      const ssize_t n = ::read(inFd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;  // the parent closed our input
      reader.feed(buffer, size_t(n));
      continue;
    }
    if (f.type == "bye") return 0;
    RunRequest request;
    std::vector<uint8_t> cubin;
    RunOutcome outcome;
    if (std::string e = decodeRunRequest(f, &request, &cubin); !e.empty()) {
      outcome.status = RunOutcome::Status::WorkerError;
      outcome.message = "the worker refuses the request: " + e;
    } else {
      outcome = runOnGpu(request, cubin);
    }
    if (!writeAll(outFd, remote::encodeFrame(runOutcomeJson(request.id, outcome)))) return 1;
    if (outcome.contextLost) return 3;  // nothing more can run in this context
  }
}

}  // namespace rl::usercode
