// Ctrl-C and SIGTERM reach --mapping auto's search (issue 30, item 12): at p64 m256 on 8x8 the
// search simulates thousands of mappings (minutes), and it ran on 120 s after the signal. Now the
// search polls the cancel flag before each simulation: the command ends 'cancelled while building
// the plan', exit 1, nothing written.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "tests/app/CliSignalUtil.h"
#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using Clock = std::chrono::steady_clock;

class CliSearchSignal : public ::testing::TestWithParam<int> {};

TEST_P(CliSearchSignal, TheMappingSearchIsCancelledBySignal) {
  const int sig = GetParam();
  test::TempDir dir;
  const std::string db = dir.file("search.sqlite");
  test::ChildProcess child({test::cliPath(), "sim", "--stages", "64", "--microbatches", "256",
                            "--topology", "8x8", "--mapping", "auto", "--db", db});
  // Well into the search (the plan is built and its rank order simulated within a second or two).
  std::this_thread::sleep_for(std::chrono::seconds(3));
  ASSERT_TRUE(child.running()) << "the search ended before the signal: " << child.err();
  const auto sent = Clock::now();
  child.signal(sig);
  const auto code = child.waitFor(std::chrono::seconds(20));
  ASSERT_TRUE(code.has_value()) << "still searching 20 s after the signal";
  std::printf(
      "[ measure  ] --mapping auto: signal %d to exit: %lld ms%s\n", sig,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count()),
      test::kSanitized ? " (ASan+UBSan build)" : "");
  EXPECT_EQ(*code, 1) << child.err();
  EXPECT_EQ(child.err(),
            "pipescope-cli: error: run cancelled: cancelled while building the plan\n");
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing is written when cancelled while planning";
}

INSTANTIATE_TEST_SUITE_P(Signals, CliSearchSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(param.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

}  // namespace
}  // namespace ps
