// pipescope-cli run --backend cuda with a plan feature the GPUs never run: the feature's flag is
// the answer, whether or not this machine has a GPU (issue 32 §9: it used to be "no CUDA device"
// on every machine without one, which hid that the feature is cpu/sim-only).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

struct Refusal {
  std::vector<std::string> plan;
  std::string reason;  // how the error starts
};

TEST(CliCudaRefusal, APlanFeatureIsNamedBeforeTheDevice) {
  TempDir dir;
  const std::string db = dir.file("cuda.sqlite");
  const std::vector<Refusal> cases = {
      {{"--schedule", "1f1b", "--stages", "2", "--microbatches", "2", "--frozen-us", "5"},
       "--frozen-us: the cuda backend"},
      {{"--preset", "graphpipe"}, "--stage-graph: the cuda backend"},
      {{"--preset", "bpipe"}, "--balance-activations: the cuda backend"},
      {{"--preset", "terapipe"}, "--token-slices: the cuda backend"},
      {{"--preset", "dynapipe"}, "--seq-lengths: the cuda backend"},
      {{"--preset", "piper"}, "--a2a-mb: the cuda backend"},
      {{"--preset", "nestpipe"}, "--fetch-mb: the cuda backend"},
      {{"--schedule", "1f1b", "--stages", "2", "--microbatches", "4", "--dp", "4"},
       "--dp 4: the cuda backend"},
  };
  for (const Refusal& c : cases) {
    std::vector<std::string> args = {"run", "--backend", "cuda", "--db", db};
    args.insert(args.end(), c.plan.begin(), c.plan.end());
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << c.reason << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("pipescope-cli: error: " + c.reason)) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("no CUDA device"))) << c.reason;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << c.reason;
  }
}

}  // namespace
}  // namespace ps
