#pragma once
// Helpers shared by the tests: temporary directories and running our executables.

#include <filesystem>
#include <string>
#include <vector>

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
void writeFile(const std::string& path, const std::string& content);

}  // namespace ps::test
