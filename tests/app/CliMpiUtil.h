#pragma once
// Shared by the CLI tests that start pipescope-cli under mpirun (run --procs).

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include "tests/common/TestPaths.h"

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

// A sanitizer options variable (ASAN_OPTIONS, LSAN_OPTIONS) with options appended while it
// lives; the processes started meanwhile inherit it. An option whose name the variable already
// sets is left as the developer set it.
class ScopedSanitizerOptions {
 public:
  explicit ScopedSanitizerOptions(const char* variable) : variable_(variable) {
    if (const char* now = std::getenv(variable)) saved_ = now;
    options_ = saved_.value_or("");
  }
  ~ScopedSanitizerOptions() {
    if (saved_)
      setenv(variable_, saved_->c_str(), 1);
    else
      unsetenv(variable_);
  }
  ScopedSanitizerOptions(const ScopedSanitizerOptions&) = delete;
  ScopedSanitizerOptions& operator=(const ScopedSanitizerOptions&) = delete;

  // Adds `name=value` unless `name` is set already.
  void add(const std::string& name, const std::string& value) {
    if (options_.find(name + "=") != std::string::npos) return;
    options_ += (options_.empty() ? "" : ":") + name + "=" + value;
    setenv(variable_, options_.c_str(), 1);
  }

 private:
  const char* variable_;
  std::optional<std::string> saved_;
  std::string options_;
};

// The environment of the MPI processes started while it lives. OpenMPI unloads its components
// before LeakSanitizer looks, so their one-frame stacks cannot be told apart from ours: unwinding
// fully (slower) reaches libmpi/libopen-pal, which tests/sanitizer/lsan.supp names (added here
// when the test's environment lacks it).
class MpiEnvironment {
 public:
  MpiEnvironment() {
    lsan_.add("suppressions", test::sourcePath("tests/sanitizer/lsan.supp"));
    lsan_.add("fast_unwind_on_malloc", "0");
  }

 private:
  ScopedSanitizerOptions lsan_{"LSAN_OPTIONS"};
};

}  // namespace ps::test
