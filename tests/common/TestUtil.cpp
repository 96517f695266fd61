#include "tests/common/TestUtil.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "trace/store/TraceStore.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace ps::test {

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("pipescope-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

void rawSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db) << " in: " << sql;
  sqlite3_close(db);
}

// Starts argv[0] with stdout and stderr going to the given files; throws if it cannot start.
pid_t spawnRedirected(const std::vector<std::string>& argv, const std::string& outPath,
                      const std::string& errPath) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  return pid;
}

CommandResult runCommand(const std::vector<std::string>& argv) {
  TempDir dir;
  const std::string outPath = dir.file("stdout"), errPath = dir.file("stderr");
  const pid_t pid = spawnRedirected(argv, outPath, errPath);
  CommandResult result;
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = readFile(outPath);
  result.err = readFile(errPath);
  return result;
}

}  // namespace ps::test

#include <csignal>
#include <thread>

namespace ps::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  pid_ = spawnRedirected(argv, dir_.file("stdout"), dir_.file("stderr"));
}

ChildProcess::~ChildProcess() {
  if (exitCode_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

void ChildProcess::signal(int sig) {
  if (!exitCode_ && pid_ > 0) ::kill(pid_, sig);
}

std::optional<int> ChildProcess::waitFor(std::chrono::milliseconds timeout) {
  if (exitCode_) return exitCode_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exitCode_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::string ChildProcess::out() const {
  return readFile(dir_.file("stdout"));
}

std::string ChildProcess::err() const {
  return readFile(dir_.file("stderr"));
}

std::vector<trace::RunInfo> runsIn(const std::string& path) {
  auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadOnly);
  EXPECT_TRUE(store.ok()) << store.error();
  if (!store) return {};
  auto runs = store->listRuns();
  EXPECT_TRUE(runs.ok()) << runs.error();
  return runs ? *runs : std::vector<trace::RunInfo>{};
}

}  // namespace ps::test
