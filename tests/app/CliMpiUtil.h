#pragma once
// Shared by the CLI tests that start pipescope-cli under mpirun (run --procs).

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>

namespace ps::test {

inline std::optional<std::string> findOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) &&
        (std::filesystem::status(candidate, ec).permissions() &
         std::filesystem::perms::owner_exec) != std::filesystem::perms::none)
      return candidate.string();
  }
  return std::nullopt;
}

// The environment of the MPI processes started while it lives (they inherit it). OpenMPI unloads
// its components before LeakSanitizer looks, so their one-frame stacks cannot be told apart from
// ours: unwinding fully (slower) reaches libmpi/libopen-pal, which tests/sanitizer/lsan.supp
// names (added here when the test's environment lacks it).
class MpiEnvironment {
 public:
  MpiEnvironment() {
    const char* lsan = std::getenv("LSAN_OPTIONS");
    if (lsan) saved_ = lsan;
    std::string options = saved_.value_or("");
    const auto add = [&options](const std::string& option) {
      options += (options.empty() ? "" : ":") + option;
    };
    if (options.find("suppressions=") == std::string::npos)
      add(std::string("suppressions=") + PIPESCOPE_SOURCE_DIR + "/tests/sanitizer/lsan.supp");
    if (options.find("fast_unwind_on_malloc") == std::string::npos) add("fast_unwind_on_malloc=0");
    setenv("LSAN_OPTIONS", options.c_str(), 1);
  }
  ~MpiEnvironment() {
    if (saved_)
      setenv("LSAN_OPTIONS", saved_->c_str(), 1);
    else
      unsetenv("LSAN_OPTIONS");
  }
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

 private:
  std::optional<std::string> saved_;
};

}  // namespace ps::test
