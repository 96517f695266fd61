// Issue 34 item 8: the 2-rank DDP Kineto trace of ../shared/traces read "step time 9.402 ms,
// bubble 0.00 %, steady bubble 95.80 %" over ~650 ms of 3 steps, and its critical path
// "collectives 238.04 % of it". The report now gives the step cadence (a step every ~225 ms) and
// says which window each figure measures; a path's shares stay within the path. Skipped without
// PIPESCOPE_EXTERNAL_TRACES.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using ::testing::HasSubstr;

TEST(CliImportedStats, ADdpTracesStepCadenceIsReportedAndPathSharesStayWithinThePath) {
  const char* root = std::getenv("PIPESCOPE_EXTERNAL_TRACES");
  if (!root || !*root) GTEST_SKIP() << "PIPESCOPE_EXTERNAL_TRACES is not set";
  const auto trace = std::filesystem::path(root) / "kineto" / "nccl_data_rank0of2_ddp.json.gz";
  if (!std::filesystem::exists(trace)) GTEST_SKIP() << trace << " does not exist";
  test::TempDir dir;
  const std::string db = dir.file("ddp.sqlite");
  const auto imported = test::cli({"import", "kineto", trace.string(), "--db", db});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto r = test::cli({"report", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("step time      9.402 ms"));
  EXPECT_THAT(r.out, HasSubstr("step cadence   224.914 ms"));
  EXPECT_THAT(r.out, HasSubstr("steady bubble  95.80 %  (from step start to step start"));
  const std::regex share(R"(([0-9.]+) % of it)");
  for (std::sregex_iterator m(r.out.begin(), r.out.end(), share), end; m != end; ++m)
    EXPECT_LE(std::stod((*m)[1]), 100.0) << r.out;
  const std::regex anyShare(R"((transfers|collectives) ([0-9.]+) %)");
  for (std::sregex_iterator m(r.out.begin(), r.out.end(), anyShare), end; m != end; ++m)
    EXPECT_LE(std::stod((*m)[2]), 100.0) << (*m)[0] << "\n" << r.out;
}

}  // namespace
}  // namespace ps
