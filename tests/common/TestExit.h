#pragma once
// How a test process ends for ctest: each gtest suite is one ctest entry (tests/GTestSuites.cmake),
// so a process whose tests were all skipped (no GPU, no external traces) exits 77, which ctest
// reports as "skipped" (SKIP_RETURN_CODE), while any failure still fails it.

namespace ps::test {

inline constexpr int kSkippedExitCode = 77;

// RUN_ALL_TESTS()'s result, turned into 77 when nothing ran but skips.
int exitCodeForCtest(int runAllTestsResult);

}  // namespace ps::test
