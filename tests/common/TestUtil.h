#pragma once
// Helpers shared by the tests: temporary directories and running our executables.

#include <filesystem>
#include <string>
#include <vector>

#include "trace/TraceRecords.h"

namespace ps::test {

// A fresh directory under the system temp dir, removed with everything in it at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] is a path) to completion, capturing stdout and stderr.
CommandResult runCommand(const std::vector<std::string>& argv);

std::string readFile(const std::string& path);
// The runs a trace file lists (read-only); an empty list, and a test failure, when it cannot.
std::vector<trace::RunInfo> runsIn(const std::string& path);
void writeFile(const std::string& path, const std::string& content);

// Runs `sql` on the SQLite file at `path` behind the store's back (to damage or reshape a file
// on purpose); fails the test when SQLite refuses it.
void rawSql(const std::string& path, const std::string& sql);

}  // namespace ps::test

#include <sys/types.h>

#include <chrono>
#include <optional>

namespace ps::test {

// A child process started without waiting for it (tests that signal or kill a running command).
// stdout and stderr go to files read by out()/err(). The destructor kills (SIGKILL) and reaps a
// child that is still running.
class ChildProcess {
 public:
  // Starts `argv` (argv[0] is a path); throws std::runtime_error when it cannot.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running() const { return !exitCode_; }
  // Sends `signal` (SIGINT, SIGKILL...) unless the child has been reaped.
  void signal(int signal);
  // Waits up to `timeout` for the child to end; its exit code (128 + signal number when a signal
  // ended it), or nullopt when it is still running.
  std::optional<int> waitFor(std::chrono::milliseconds timeout);
  std::string out() const;
  std::string err() const;

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  std::optional<int> exitCode_;
};

}  // namespace ps::test
