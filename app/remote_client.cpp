#include "remote_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "interrupt.hpp"

extern char** environ;

namespace rl::app {

namespace {

using Clock = std::chrono::steady_clock;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string lastLine(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

std::string checkRemoteHost(const std::string& host) {
  if (host.empty()) return "--remote needs a host name (as ssh takes it: HOST or USER@HOST)";
  if (host[0] == '-') return "--remote '" + host + "' looks like an option, not a host name";
  if (host.size() > 255) return "--remote: the host name is too long";
  for (unsigned char c : host)
    if (c <= ' ' || c == 127) return "--remote '" + host + "': a host name has no spaces or control characters";
  return {};
}

std::unique_ptr<RemoteClient> RemoteClient::start(const std::string& host, const std::string& command,
                                                  std::string* error) {
  std::vector<std::string> args;
  std::unique_ptr<RemoteClient> c(new RemoteClient());
  if (!host.empty()) {
    if (std::string e = checkRemoteHost(host); !e.empty()) return *error = e, nullptr;
    // -T: no terminal (the protocol is binary); the keep-alive notices a network that went away.
    args = {"ssh", "-T", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3", host,
            "reducelab", "serve", "--stdio"};
    c->target_ = host;
  } else {
    if (command.empty()) return *error = "--remote-command needs a command", nullptr;
    c->target_ = command;
    // A simple command (words, quotes, $VARIABLES) runs directly: the child is the server
    // itself, reaped here. One with shell syntax (pipes, ;, &&, redirections) runs through
    // /bin/sh in its own process group, which is ended as a whole.
    wordexp_t words;
    if (::wordexp(command.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF) == 0) {
      for (size_t i = 0; i < words.we_wordc; ++i) args.push_back(words.we_wordv[i]);
      ::wordfree(&words);
    }
    if (args.empty()) {
      args = {"/bin/sh", "-c", command};
      c->ownGroup_ = true;
    }
  }
  // A peer that went away shows as a failed write, not as a signal that ends the app.
  ::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return *error = std::string("pipe: ") + std::strerror(errno), nullptr;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return *error = std::string("pipe: ") + std::strerror(errno), nullptr;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return *error = std::string("pipe: ") + std::strerror(errno), nullptr;
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  posix_spawnattr_init(&attr);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigemptyset(&none);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (c->ownGroup_) flags |= POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&attr, flags);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    *error = "cannot start " + std::string(argv[0]) + ": " + std::strerror(rc);
    return nullptr;
  }
  c->pid_ = pid;
  c->toChild_ = in[1];
  c->fromChild_ = out[0];
  c->errFromChild_ = err[0];
  ::fcntl(c->toChild_, F_SETFL, ::fcntl(c->toChild_, F_GETFL) | O_NONBLOCK);
  if (::pipe2(c->wake_, O_CLOEXEC) != 0) c->wake_[0] = c->wake_[1] = -1;
  RemoteClient* self = c.get();
  c->reader_ = std::thread([self] { self->readerLoop(); });
  c->writer_ = std::thread([self] { self->writerLoop(); });
  return c;
}

RemoteClient::~RemoteClient() { close(); }

void RemoteClient::send(const nlohmann::json& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (dropped_ || writerStop_) return;
  outbox_.push_back(remote::encodeFrame(body));
  writerCv_.notify_all();
}

void RemoteClient::queueRun(const RunConfig& c, const std::string& label, RunKind kind) {
  ++pendingRuns_;
  send(remote::runRequest(c, label, kind));
}

void RemoteClient::queueSweep(const SweepSpec& s) {
  sweepRunning_ = true;
  send(remote::sweepRequest(s));
}

void RemoteClient::sendUserKernel(const std::string& file, const std::string& source) {
  send(remote::userKernelRequest(file, source));
}

void RemoteClient::cancelSweep() { send(remote::simpleMessage("cancel_sweep")); }

void RemoteClient::queueCheck(const usercode::CheckRequest& q, double timeoutSeconds) {
  checkEvents_ = 0, checkCases_ = 0, checkTotal_ = 0;
  checkRunning_ = true;
  send(usercode::checkRequestMessage(q, timeoutSeconds));
}

void RemoteClient::cancelCheck() { send(remote::simpleMessage("cancel_check")); }

uint64_t RemoteClient::queueTrace(const RunConfig& c) {
  const uint64_t id = nextTraceId_++;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tracesAsked_.insert(id);
  }
  send(remote::traceRequest(id, c));
  return id;
}

void RemoteClient::queueResources(const RunConfig& c) { send(remote::resourcesRequest(c)); }
void RemoteClient::queuePeaks(bool remeasure) { send(remote::peaksRequest(remeasure)); }

RemoteEvents RemoteClient::poll() {
  std::lock_guard<std::mutex> lock(mutex_);
  RemoteEvents out = std::move(pending_);
  pending_ = RemoteEvents{};
  return out;
}

bool RemoteClient::waitForEvents(double seconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  return cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] {
    const RemoteEvents& e = pending_;
    return e.hello || e.dropped || !e.traces.empty() || !e.service.measurements.empty() ||
           !e.service.sweepRows.empty() || !e.service.messages.empty() || e.service.sweep || e.service.resources ||
           e.service.peaks || !e.checks.empty();
  });
}

void RemoteClient::setDropped(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (dropped_) return;
  dropped_ = true;
  connected_ = false;
  pendingRuns_ = 0;
  sweepRunning_ = false;
  outbox_.clear();
  pending_.dropped = why;
  cv_.notify_all();
  writerCv_.notify_all();
}

std::string RemoteClient::childStatus(bool wait) {
  std::lock_guard<std::mutex> lock(childMutex_);
  if (!reaped_ && pid_ > 0) {
    int st = 0;
    pid_t r;
    do r = ::waitpid(pid_, &st, wait ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == pid_ || (r < 0 && errno == ECHILD)) reaped_ = true, exitStatus_ = r == pid_ ? st : 0;
  }
  if (!reaped_) return {};
  if (WIFSIGNALED(exitStatus_)) return "killed by signal " + std::to_string(WTERMSIG(exitStatus_));
  return "exit status " + std::to_string(WEXITSTATUS(exitStatus_));
}

void RemoteClient::handleFrame(remote::Frame& f) {
  std::string err;
  if (f.type == "hello") {
    remote::Hello h;
    if (connected_) err = "a second hello";
    else if ((err = remote::decodeHello(f, &h)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.hello = std::move(h);
      connected_ = true;
      cv_.notify_all();
      return;
    }
  } else if (!connected_) {
    err = "the server did not begin with a hello";
  } else if (f.type == "measurement" || f.type == "sweep_row") {
    Measurement m;
    std::string axis;
    // Only what was asked for is taken: a server cannot fill the app with records of its own.
    if (f.type == "measurement" && pendingRuns_ == 0) err = "a measurement nobody asked for";
    else if (f.type == "sweep_row" && !sweepRunning_) err = "a sweep row while no sweep runs";
    else if ((err = remote::decodeMeasurement(f, &m, &axis)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (f.type == "measurement") {
        if (pendingRuns_ > 0) --pendingRuns_;
        pending_.service.measurements.push_back(std::move(m));
      } else {
        pending_.service.sweepRows.push_back({axis, std::move(m)});
      }
    }
  } else if (f.type == "sweep_progress") {
    SweepProgress p;
    if ((err = remote::decodeSweepProgress(f, &p)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (p.finished) sweepRunning_ = false;
      pending_.service.sweep = p;
    }
  } else if (f.type == "message") {
    std::string text;
    if (++messages_ > kMaxMessages) err = "more than " + std::to_string(kMaxMessages) + " messages";
    else if ((err = remote::decodeText(f, &text)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.service.messages.push_back(std::move(text));
    }
  } else if (f.type == "error") {
    std::string text;
    if ((err = remote::decodeText(f, &text)).empty()) err = "the server says: " + text;
  } else if (f.type == "resources") {
    ResourcesDone r;
    if ((err = remote::decodeResources(f, &r)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.service.resources = std::move(r);
    }
  } else if (f.type == "peaks") {
    Peaks p;
    if ((err = remote::decodePeaks(f, &p)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.service.peaks = p;
    }
  } else if (f.type == "trace") {
    remote::TraceReply t;
    if ((err = remote::decodeTrace(f, &t)).empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (tracesAsked_.erase(t.id) == 0) err = "a trace nobody asked for";
      else pending_.traces.push_back(std::move(t));
    }
  } else if (f.type == "check_event") {
    usercode::CheckEvent e;
    // Only while a check was asked for, and bounded: a server cannot fill the app with cases.
    if (!checkRunning_) err = "a check event while no check runs";
    else if (++checkEvents_ > kMaxCheckEvents) err = "more than " + std::to_string(kMaxCheckEvents) + " events of one check";
    else if ((err = usercode::decodeCheckEvent(f, &e)).empty()) {
      if (e.kind == usercode::CheckEvent::Kind::Compiled) checkTotal_ = size_t(e.total);
      if (e.kind == usercode::CheckEvent::Kind::Case && ++checkCases_ > checkTotal_)
        throw std::runtime_error("more cases than the check announced (" + std::to_string(checkTotal_) + ")");
      std::lock_guard<std::mutex> lock(mutex_);
      if (e.kind == usercode::CheckEvent::Kind::Done) checkRunning_ = false;
      pending_.checks.push_back(std::make_shared<const usercode::CheckEvent>(std::move(e)));
    }
  } else {
    err = "a '" + f.type + "' request from the server";
  }
  if (!err.empty()) throw std::runtime_error(err);
  std::lock_guard<std::mutex> lock(mutex_);
  cv_.notify_all();
}

void RemoteClient::readerLoop() {
  remote::FrameReader reader;
  std::vector<char> buf(64 * 1024);
  std::string refused;
  bool outOpen = true, errOpen = true;
  while (outOpen || errOpen) {
    pollfd fds[3] = {{outOpen ? fromChild_ : -1, POLLIN, 0}, {errOpen ? errFromChild_ : -1, POLLIN, 0},
                     {wake_[0], POLLIN, 0}};
    // Once stdout has ended, stderr gets a moment for the child's last words (ssh's reason).
    const int timeout = outOpen ? -1 : 500;
    const int n = ::poll(fds, 3, timeout);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || fds[2].revents) break;  // timed out, or close() wakes us
    if (fds[1].revents) {
      const ssize_t r = ::read(errFromChild_, buf.data(), buf.size());
      if (r > 0) {
        (void)!::write(STDERR_FILENO, buf.data(), size_t(r));  // the user sees ssh's prompts and errors
        stderrTail_.append(buf.data(), size_t(r));
        if (stderrTail_.size() > 4096) stderrTail_.erase(0, stderrTail_.size() - 4096);
      } else if (r == 0 || errno != EINTR) {
        errOpen = false;
      }
    }
    if (fds[0].revents) {
      const ssize_t r = ::read(fromChild_, buf.data(), buf.size());
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        outOpen = false;
        continue;
      }
      reader.feed(buf.data(), size_t(r));
      try {
        for (;;) {
          remote::Frame f;
          std::string err;
          const auto st = reader.next(&f, &err);
          if (st == remote::FrameReader::Status::NeedMore) break;
          if (st == remote::FrameReader::Status::Error) throw std::runtime_error(err);
          handleFrame(f);
        }
      } catch (const std::exception& e) {
        refused = e.what();
        break;
      }
    }
  }
  if (closing_) return;
  if (!refused.empty()) {
    // Nothing after a bad frame can be trusted: the server is stopped and the session ends.
    {
      std::lock_guard<std::mutex> lock(childMutex_);
      if (!reaped_ && pid_ > 0) ::kill(ownGroup_ ? -pid_ : pid_, SIGTERM);
    }
    setDropped("the connection to " + target_ + " was refused: " + refused);
    return;
  }
  // The server's output ended: it exited, was killed, or the network went away.
  std::string status;
  for (int i = 0; i < 100 && (status = childStatus(false)).empty() && !closing_; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::string why = "the connection to " + target_ + " was lost (the server " +
                    (status.empty() ? std::string("closed its output") : "ended, " + status) + ")";
  const std::string said = lastLine(stderrTail_);
  if (!said.empty()) why += ": " + said.substr(0, 300);
  setDropped(why);
}

void RemoteClient::writerLoop() {
  for (;;) {
    std::string frame;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      writerCv_.wait(lock, [&] { return !outbox_.empty() || writerStop_ || dropped_; });
      if (outbox_.empty()) break;  // stopping (or dropped) with nothing left to say
      frame = std::move(outbox_.front());
      outbox_.pop_front();
    }
    size_t done = 0;
    while (done < frame.size() && !abortWrites_) {
      const ssize_t n = ::write(toChild_, frame.data() + done, frame.size() - done);
      if (n > 0) {
        done += size_t(n);
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        pollfd p{toChild_, POLLOUT, 0};
        ::poll(&p, 1, 100);  // a server that does not read: checked again for the abort
      } else {
        break;  // the server's input is closed: the reader reports the end
      }
    }
    if (abortWrites_) break;
  }
  closeFd(toChild_);  // the server sees the end of its input
}

void RemoteClient::close() {
  if (pid_ < 0 || closing_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!dropped_) outbox_.push_back(remote::encodeFrame(remote::simpleMessage("bye")));
    writerStop_ = true;
    writerCv_.notify_all();
  }
  // A moment to end on its own (a running sweep is cancelled between repetitions), then signals.
  auto waitExit = [&](double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (childStatus(false).empty() && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return !childStatus(false).empty();
  };
  if (!waitExit(1.5)) {
    {
      std::lock_guard<std::mutex> lock(childMutex_);
      if (!reaped_) ::kill(ownGroup_ ? -pid_ : pid_, SIGTERM);
    }
    if (!waitExit(1.0)) {
      {
        std::lock_guard<std::mutex> lock(childMutex_);
        if (!reaped_) ::kill(ownGroup_ ? -pid_ : pid_, SIGKILL);
      }
      childStatus(true);
    }
  }
  // The process group may hold more (the shell's other children): they go too.
  if (ownGroup_) ::kill(-pid_, SIGKILL);
  abortWrites_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    writerCv_.notify_all();
  }
  if (writer_.joinable()) writer_.join();
  if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
  if (reader_.joinable()) reader_.join();
  closeFd(toChild_), closeFd(fromChild_), closeFd(errFromChild_), closeFd(wake_[0]), closeFd(wake_[1]);
}

std::unique_ptr<RemoteClient> connectRemote(const std::string& host, const std::string& command,
                                            remote::Hello* hello, std::string* error) {
  std::unique_ptr<RemoteClient> c = RemoteClient::start(host, command, error);
  if (!c) return nullptr;
  installInterruptHandler();
  for (;;) {
    c->waitForEvents(0.1);
    RemoteEvents ev = c->poll();
    for (const std::string& m : ev.service.messages) std::fprintf(stderr, "remote: %s\n", m.c_str());
    if (ev.hello) {
      *hello = *ev.hello;
      std::fprintf(stderr, "remote: connected to %s (%s, ReduceLab %s, commit %s)\n", ev.hello->host.c_str(),
                   ev.hello->device.available ? ev.hello->device.name.c_str() : "no GPU: CPU model",
                   ev.hello->version.c_str(), ev.hello->commit.c_str());
      return c;
    }
    if (ev.dropped) return *error = *ev.dropped, nullptr;
    if (interrupted()) return *error = "interrupted while connecting to " + c->target(), nullptr;
  }
}

}  // namespace rl::app
