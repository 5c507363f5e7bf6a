#include "file_dialog.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace rl::app {

std::vector<std::string> zenityArguments(FileDialogKind kind, const std::string& title, const std::string& startPath) {
  std::vector<std::string> a = {"zenity", "--file-selection", "--title=" + title};
  if (!startPath.empty()) a.push_back("--filename=" + startPath);
  switch (kind) {
    case FileDialogKind::Open:
      a.push_back("--file-filter=ReduceLab recordings and sessions | *.reducelab *.json");
      a.push_back("--file-filter=All files | *");
      break;
    case FileDialogKind::Save:
      a.push_back("--save");
      a.push_back("--confirm-overwrite");
      a.push_back("--file-filter=ReduceLab recordings | *.reducelab");
      break;
    case FileDialogKind::Folder:
      a.push_back("--directory");
      break;
  }
  return a;
}

FileDialog::~FileDialog() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  closePipe();
}

void FileDialog::closePipe() {
  if (pipe_ >= 0) close(pipe_);
  pipe_ = -1;
}

std::string FileDialog::start(FileDialogKind kind, const std::string& title, const std::string& startPath,
                              const std::string& program) {
  if (running()) return "a file dialog is already open";
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("no pipe for the file dialog: ") + std::strerror(errno);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);  // dup2 clears close-on-exec
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);  // GTK's warnings
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> args = zenityArguments(kind, title, startPath);
  args[0] = program;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return rc == ENOENT ? program + " is not installed (not on PATH)" : program + " could not start: " + std::strerror(rc);
  }
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  pid_ = pid;
  pipe_ = fds[0];
  output_.clear();
  kind_ = kind;
  return {};
}

std::optional<FileDialogResult> FileDialog::poll() {
  if (pid_ <= 0) return std::nullopt;
  char buf[4096];
  for (;;) {  // what the dialog printed so far (a pipe holds 64 KiB: read it as it comes)
    const ssize_t got = read(pipe_, buf, sizeof buf);
    if (got > 0) {
      if (output_.size() < 65536) output_.append(buf, size_t(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more now; 0: closed
  }
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done == 0) return std::nullopt;
  for (ssize_t got; (got = read(pipe_, buf, sizeof buf)) > 0;)
    if (output_.size() < 65536) output_.append(buf, size_t(got));
  pid_ = -1;
  closePipe();
  FileDialogResult r;
  if (done < 0) {
    r.error = std::string("the file dialog was lost: ") + std::strerror(errno);
    return r;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::string path = output_.substr(0, output_.find('\n'));
    if (path.empty()) {
      r.error = "the file dialog returned no path";
      return r;
    }
    r.status = FileDialogResult::Chosen;
    r.path = path;
    return r;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {  // zenity: Cancel or the window closed
    r.status = FileDialogResult::Cancelled;
    return r;
  }
  r.error = WIFEXITED(status) ? "the file dialog failed (exit " + std::to_string(WEXITSTATUS(status)) + ")"
                              : "the file dialog ended by signal " + std::to_string(WTERMSIG(status));
  return r;
}

}  // namespace rl::app
