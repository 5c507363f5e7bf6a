// The parent's end of the worker (worker.hpp): start, requests under a watchdog, kill, restart.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <filesystem>
#include <thread>

#include "reducelab/platform.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/usercode/worker.hpp"

extern char** environ;

namespace rl::usercode {

namespace {

using Clock = std::chrono::steady_clock;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string selfExecutable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string secondsText(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

}  // namespace

WorkerOptions workerOptionsFromEnvironment() {
  WorkerOptions w;
  const char* env = std::getenv("REDUCELAB_KERNEL_WORKER");
  if (!env || !*env) return w;
  std::istringstream words(env);
  std::vector<std::string> parts;
  for (std::string word; words >> word;) parts.push_back(word);
  if (parts.empty()) return w;
  w.executable = parts.front();
  w.args.assign(parts.begin() + 1, parts.end());
  return w;
}

KernelWorker::KernelWorker(WorkerOptions options) : options_(std::move(options)) {}

KernelWorker::~KernelWorker() { stop(); }

std::string KernelWorker::start() {
  kill();
  if (platform::kBrowser) return platform::kBrowserLimits;
  const std::string exe = options_.executable.empty() ? selfExecutable() : options_.executable;
  if (exe.empty()) return "cannot find this program's file to start its worker";
  std::vector<std::string> args{exe};
  args.insert(args.end(), options_.args.begin(), options_.args.end());
  ::signal(SIGPIPE, SIG_IGN);  // a worker that died shows as a failed write
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return std::string("pipe: ") + std::strerror(errno);
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return std::string("pipe: ") + std::strerror(errno);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Ctrl+C reaches the parent, which decides; the worker's own signals are the defaults.
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigemptyset(&none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    return "cannot start the worker " + exe + ": " + std::strerror(rc);
  }
  pid_ = pid;
  ++starts_;
  toWorker_ = in[1];
  fromWorker_ = out[0];
  errFromWorker_ = err[0];
  reader_ = remote::FrameReader{};
  stderrTail_.clear();
  remote::Frame hello;
  std::string error;
  switch (readFrame(&hello, options_.startSeconds, &error)) {
    case Wait::Frame: break;
    case Wait::Timeout:
      kill();
      return "the worker did not start within " + secondsText(options_.startSeconds) + " s";
    case Wait::Cancelled: kill(); return "cancelled";
    case Wait::Ended: return "the worker ended before it said hello: " + (error.empty() ? endedText() : error);
  }
  if (std::string e = decodeWorkerHello(hello, &device_, &tracer_); !e.empty()) {
    kill();
    return "the worker's hello is wrong: " + e;
  }
  return {};
}

DeviceInfo KernelWorker::device() {
  if (pid_ <= 0) {
    if (std::string e = start(); !e.empty()) {
      DeviceInfo d;
      d.unavailableReason = e;
      return d;
    }
  }
  return device_;
}

std::string KernelWorker::tracer() {
  if (pid_ <= 0)
    if (std::string e = start(); !e.empty()) return e;
  return tracer_;
}

KernelWorker::Wait KernelWorker::readFrame(remote::Frame* f, double seconds, std::string* error) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  char buffer[1 << 16];
  for (;;) {
    switch (reader_.next(f, error)) {
      case remote::FrameReader::Status::Frame: return Wait::Frame;
      case remote::FrameReader::Status::Error: kill(); return Wait::Ended;
      case remote::FrameReader::Status::NeedMore: break;
    }
    if (cancel_.exchange(false) || (options_.cancelled && options_.cancelled())) return Wait::Cancelled;
    const auto now = Clock::now();
    if (now >= deadline) return Wait::Timeout;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd fds[2] = {{fromWorker_, POLLIN, 0}, {errFromWorker_, POLLIN, 0}};
    const int n = ::poll(fds, 2, int(std::min<long long>(left, 100)));
    if (n < 0 && errno != EINTR) return Wait::Ended;
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      const ssize_t got = ::read(errFromWorker_, buffer, sizeof buffer);
      if (got > 0) {
        stderrTail_.append(buffer, size_t(got));
        if (stderrTail_.size() > 2048) stderrTail_.erase(0, stderrTail_.size() - 2048);
      } else {
        closeFd(errFromWorker_);
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(fromWorker_, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return Wait::Ended;
      reader_.feed(buffer, size_t(got));
    }
  }
}

std::string KernelWorker::endedText() {
  std::string how = "it ended";
  if (pid_ > 0) {
    int st = 0;
    pid_t r = 0;
    // It closed its output: it is exiting; give it a moment.
    for (int i = 0; i < 50 && (r = ::waitpid(pid_, &st, WNOHANG)) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (r == pid_) {
      pid_ = -1;
      if (WIFSIGNALED(st)) how = "it was killed by signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) + ")";
      else if (WIFEXITED(st)) how = "it exited with code " + std::to_string(WEXITSTATUS(st));
    }
  }
  // What it said last, to the end of its stderr (briefly: a grandchild may hold the pipe open).
  for (int i = 0; i < 10 && errFromWorker_ >= 0; ++i) {
    pollfd p{errFromWorker_, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) break;
    char buffer[4096];
    const ssize_t got = ::read(errFromWorker_, buffer, sizeof buffer);
    if (got <= 0) break;
    stderrTail_.append(buffer, size_t(got));
  }
  if (stderrTail_.size() > 2048) stderrTail_.erase(0, stderrTail_.size() - 2048);
  std::string tail = stderrTail_;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (const size_t nl = tail.rfind('\n'); nl != std::string::npos) tail = tail.substr(nl + 1);
  kill();
  return tail.empty() ? how : how + "; its last words: " + tail;
}

void KernelWorker::kill() {
  closeFd(toWorker_);
  closeFd(fromWorker_);
  closeFd(errFromWorker_);
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // its own process group: anything it started goes too
    ::kill(pid_, SIGKILL);
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  reader_ = remote::FrameReader{};
}

void KernelWorker::stop() {
  if (pid_ > 0 && toWorker_ >= 0) {
    const std::string bye = remote::encodeFrame(remote::simpleMessage("bye"));
    (void)!::write(toWorker_, bye.data(), bye.size());
    closeFd(toWorker_);
    int st = 0;
    for (int i = 0; i < 50; ++i) {
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  kill();
}

RunOutcome KernelWorker::run(const RunRequest& request, const std::vector<uint8_t>& cubin) {
  RunOutcome o;
  cancel_ = false;
  if (cubin.size() > kMaxCubinBytes) {
    o.message = "the kernel's cubin is " + formatBytes(cubin.size()) + "; the worker takes at most " +
                formatBytes(kMaxCubinBytes);
    return o;
  }
  const DeviceInfo d = device();
  if (!d.available) {
    o.message = "running your kernel needs a GPU: " + d.unavailableReason;
    return o;
  }
  RunRequest r = request;
  r.id = nextId_++;
  const std::string frame = remote::encodeFrame(runRequestJson(r, cubin));
  for (size_t done = 0; done < frame.size();) {
    const ssize_t n = ::write(toWorker_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      o.message = "the worker does not take requests: " + endedText();
      return o;
    }
    done += size_t(n);
  }
  // The watchdog: the time a kernel may take, plus a second per GiB of data to make and check.
  // A traced run patches the module and runs its first launch twice, once about 200x slower.
  const double seconds = options_.timeoutSeconds + double(r.n * elemBytes(r.type)) / double(1u << 30) +
                         (r.traceBlock >= 0 ? 20.0 : 0.0);
  remote::Frame f;
  std::string error;
  switch (readFrame(&f, seconds, &error)) {
    case Wait::Frame: break;
    case Wait::Timeout:
      kill();
      o.status = RunOutcome::Status::Timeout;
      o.message = "the kernel did not finish within " + secondsText(seconds) +
                  " s (an endless loop, or a wait that never ends): its worker process was stopped, and the next run "
                  "starts a new one";
      return o;
    case Wait::Cancelled:
      kill();
      o.message = "cancelled: the worker process was stopped";
      return o;
    case Wait::Ended:
      o.status = RunOutcome::Status::Fault;
      o.message = "the worker process ended during the run: " + (error.empty() ? endedText() : error);
      return o;
  }
  uint64_t id = 0;
  if (std::string e = decodeRunOutcome(f, &id, &o); !e.empty() || id != r.id) {
    kill();
    RunOutcome bad;
    bad.message = "the worker's answer is wrong: " + (e.empty() ? "it answers another request" : e);
    return bad;
  }
  if (o.contextLost) endedText();  // it exits after such a run: reaped now, restarted on the next
  return o;
}

}  // namespace rl::usercode
