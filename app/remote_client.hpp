#pragma once
// The app's end of a remote session (docs/remote.md): starts `ssh HOST reducelab serve --stdio`
// (or a command of the user's) as a child process and talks the remote protocol over its stdin
// and stdout. A reader thread decodes what arrives into a queue that poll() drains (the GUI
// once per frame); a writer thread sends requests. No call waits on the pipe, except the
// waitFor* helpers the CLI uses.
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "reducelab/measurement_service.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/usercode/check_json.hpp"

namespace rl::app {

struct RemoteEvents {
  std::optional<remote::Hello> hello;         // the server's greeting (once)
  ServiceEvents service;                      // records, sweep rows and progress, messages, peaks
  std::vector<remote::TraceReply> traces;
  std::vector<std::shared_ptr<const usercode::CheckEvent>> checks;  // a check's steps (queueCheck)
  std::optional<std::string> dropped;         // the connection ended: why (once)
};

class RemoteClient {
 public:
  // `host` non-empty: `ssh -T HOST reducelab serve --stdio`; else `command` through /bin/sh.
  // nullptr with *error when the child cannot be started (or the host name is not one).
  static std::unique_ptr<RemoteClient> start(const std::string& host, const std::string& command, std::string* error);
  ~RemoteClient();  // close()
  RemoteClient(const RemoteClient&) = delete;
  RemoteClient& operator=(const RemoteClient&) = delete;

  const std::string& target() const { return target_; }  // the host, or the command

  void queueRun(const RunConfig& c, const std::string& label, RunKind kind);
  void queueSweep(const SweepSpec& s);
  void cancelSweep();
  uint64_t queueTrace(const RunConfig& c);  // the id the reply carries
  void queueResources(const RunConfig& c);
  void queuePeaks(bool remeasure);
  // The user's kernel (docs/your-kernel.md): compiled and run by the server in its own worker;
  // later runs, sweeps and traces of kernel "yours" go to it.
  void sendUserKernel(const std::string& file, const std::string& source);
  // `reducelab check` on the server's GPU (in a worker of its own): its steps arrive in poll().checks,
  // the last one Done. One at a time; cancelCheck stops it (its Done still comes).
  void queueCheck(const usercode::CheckRequest& q, double timeoutSeconds);
  void cancelCheck();
  bool checkRunning() const { return checkRunning_.load(); }

  RemoteEvents poll();
  bool connected() const { return connected_.load(); }  // hello received, not dropped
  bool dropped() const { return dropped_.load(); }
  size_t pendingRuns() const { return pendingRuns_.load(); }
  bool sweepRunning() const { return sweepRunning_.load(); }

  // CLI helpers: poll until the hello (or the drop) arrives; false after `seconds`.
  bool waitForEvents(double seconds);

  // Ends the session: "bye", the child's stdin closed; it gets a moment to exit, then SIGTERM,
  // then SIGKILL; always reaped. Returns within about three seconds.
  void close();

 private:
  RemoteClient() = default;
  void send(const nlohmann::json& body);
  void readerLoop();
  void writerLoop();
  void handleFrame(remote::Frame& f);
  void setDropped(const std::string& why);
  std::string childStatus(bool wait);  // "" while running; how it ended otherwise

  std::string target_;
  pid_t pid_ = -1;
  bool ownGroup_ = false;  // the child leads its own process group (killed as a group)
  int toChild_ = -1, fromChild_ = -1, errFromChild_ = -1;
  int wake_[2] = {-1, -1};
  bool reaped_ = false;
  int exitStatus_ = 0;
  std::mutex childMutex_;

  std::mutex mutex_;
  std::condition_variable cv_;
  RemoteEvents pending_;
  std::deque<std::string> outbox_;
  bool writerStop_ = false;
  std::condition_variable writerCv_;
  std::string stderrTail_;  // the child's last stderr text (ssh says why it failed there)
  std::atomic<bool> connected_{false}, dropped_{false}, closing_{false}, abortWrites_{false};
  std::atomic<size_t> pendingRuns_{0};
  std::atomic<bool> sweepRunning_{false};
  std::atomic<bool> checkRunning_{false};
  // The check in flight's events and cases so far, and the cases its Compiled event announced:
  // reset by queueCheck (before the request leaves), counted on the reader thread.
  std::atomic<size_t> checkEvents_{0}, checkCases_{0}, checkTotal_{0};
  static constexpr size_t kMaxCheckEvents = 100010;  // a battery's cases (at most 100000) and the other steps
  uint64_t nextTraceId_ = 1;
  std::set<uint64_t> tracesAsked_;  // ids without a reply yet
  static constexpr size_t kMaxMessages = 100000;  // log lines a session may add
  size_t messages_ = 0;
  std::thread reader_, writer_;
};

// CLI: starts the session and waits for the server's hello (Ctrl+C gives up). nullptr with
// *error when it cannot start, the connection drops or is refused, or Ctrl+C was pressed.
// Messages that arrive with the hello are printed on stderr.
std::unique_ptr<RemoteClient> connectRemote(const std::string& host, const std::string& command,
                                            remote::Hello* hello, std::string* error);

// A host name ssh can be given safely: not an option, no spaces or control characters.
std::string checkRemoteHost(const std::string& host);

}  // namespace rl::app
