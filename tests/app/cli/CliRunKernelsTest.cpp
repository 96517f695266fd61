// `pipescope-cli run --backend cpu` names the kernels its numbers come from with the core's words
// (runtime::describeBackend): the CLI includes no kernels/ header (DESIGN §1).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/run/BackendDescription.h"
#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using ::testing::HasSubstr;

TEST(CliRunKernels, CpuRunNamesTheBlasAndElementwiseKernelsOfDescribeBackend) {
  test::TempDir dir;
  const runtime::BackendDescription cpu = runtime::describeBackend(runtime::Backend::Cpu);
  ASSERT_FALSE(cpu.blas.empty());
  const auto r = test::cli({"run", "--backend", "cpu", "--schedule", "1f1b", "--stages", "2",
                            "--microbatches", "2", "--hidden", "16", "--seq", "4", "--mb-size", "2",
                            "--db", dir.file("kernels.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("pipescope-cli: cpu kernels: " + cpu.blas + ", elementwise " +
                               cpu.simd + "\n"));
  if (!cpu.warning.empty()) {
    EXPECT_THAT(r.err, HasSubstr("pipescope-cli: " + cpu.warning + "\n"));
  }
}

}  // namespace
}  // namespace ps
