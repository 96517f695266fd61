// What every start of the CLI costs. cuBLAS and NCCL are opened only by a run on a GPU
// (kernels/cuda/CudaLibraries.h): linked, libcublasLt's start-up code alone cost each start
// 0.3 s (0.6 s sanitized) and 300 MB, for `--version` as for an import on a login node.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestPaths.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CliStartup, LoadsNoCudaLibraryUntilAGpuRunOpensIt) {
  const auto dynamic = test::runCommand({"/usr/bin/readelf", "--dynamic", test::cliPath()});
  ASSERT_EQ(dynamic.exit_code, 0) << dynamic.err;
  ASSERT_THAT(dynamic.out, HasSubstr("(NEEDED)"));  // the listing is there to be read
  EXPECT_THAT(dynamic.out, Not(HasSubstr("libcublas")));
  EXPECT_THAT(dynamic.out, Not(HasSubstr("libnccl")));
  EXPECT_THAT(dynamic.out, Not(HasSubstr("libcudart.so")));

  const auto version = test::cli({"--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_THAT(version.out, HasSubstr("pipescope-cli"));
}

}  // namespace
}  // namespace ps
