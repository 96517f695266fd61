// Every plan form the flags build is estimated before it is built (issue 30, item 11): the
// micro-batches --seq-lengths groups (DynaPipe) and --token-slices cuts (TeraPipe) were never
// counted (the check saw --microbatches' 8), nor the all-to-all copies --a2a-mb adds after each op
// of --dp replicas, nor --fetch-mb's gathers: each grew to ~19 GB and a bad_alloc abort. Each is
// now refused before generation, the message naming the flags, the product and the limit.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "runtime/plan/PlanLimits.h"
#include "runtime/run/PlanBuilder.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

std::string formBuildError(const PlanSpec& spec) {
  auto built = buildPlan(spec);
  return built ? std::string("(built)") : built.error();
}

std::string repeated(const std::string& item, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += (i ? "," : "") + item;
  return out;
}

// 1000 sequences of 2048 tokens, one a micro-batch (DynaPipe's DP keeps them apart over 64
// stages), over 1000 steps: 64 × 1000 × 1000 × 2 = 1.3e8 actions, where the check saw 8.
TEST(PlanSizeForms, SequenceLengthsAreCountedAsTheMicrobatchesTheyGroupInto) {
  PlanSpec s;
  s.stages = 64;
  s.steps = 1000;
  s.seqLengths = repeated("2048", 1000);
  EXPECT_EQ(formBuildError(s),
            "plan too large: --seq-lengths: 1000 sequences in 1000 micro-batches: 64 stages × 1000 "
            "micro-batches × 1000 steps × 2 ops (F, B) = 1.3e8 actions (limit 2.0e7)");
}

// 64 sequences cut into 64 slices each: 4096 micro-batches, × 64 stages × 100 steps × 2.
TEST(PlanSizeForms, TokenSlicesAreCountedAsMicrobatches) {
  PlanSpec s;
  s.schedule = "gpipe";
  s.stages = 64;
  s.microbatches = 64;
  s.steps = 100;
  s.tokenSlices = "64";
  EXPECT_EQ(formBuildError(s),
            "plan too large: --token-slices: 64 sequences × 64 slices: 64 stages × 4096 "
            "micro-batches × 100 steps × 2 ops (F, B) = 5.2e7 actions (limit 2.0e7)");
}

// 4 stages × 2^20 micro-batches × 2 ops is 8.4e6 actions, under the limit; with --dp 64 each F and
// B sends 63 copies: 5.3e8 more.
TEST(PlanSizeForms, AllToAllCopiesOfEveryOpAreCounted) {
  PlanSpec s;
  s.stages = 4;
  s.dataParallel = 64;
  s.microbatches = 1 << 20;
  s.a2aMb = 1;
  s.uniform.linkGbps = 100;
  EXPECT_EQ(formBuildError(s),
            "plan too large: 4 stages × 1048576 micro-batches × 1 step × 2 ops (F, B) = 8389120 "
            "actions + 5.3e8 all-to-all copies (--a2a-mb over --dp 64: 63 after each F, B, I) = "
            "5.4e8 (limit 2.0e7)");
}

// 64 × 120000 × 2 = 1.5e7 actions, and 64 copies gathered before each of the 120000 F of stage 0.
TEST(PlanSizeForms, EmbeddingFetchesAreCounted) {
  PlanSpec s;
  s.stages = 64;
  s.microbatches = 120000;
  s.fetchMb = 1;
  s.uniform.linkGbps = 100;
  EXPECT_EQ(formBuildError(s),
            "plan too large: 64 stages × 120000 micro-batches × 1 step × 2 ops (F, B) = 1.5e7 "
            "actions + 7680000 fetch copies (--fetch-mb: 64 per F of stage 0) = 2.3e7 (limit "
            "2.0e7)");
}

// The same forms at a size that fits still build.
TEST(PlanSizeForms, SmallPlansOfEachFormStillBuild) {
  PlanSpec seq;
  seq.seqLengths = repeated("512", 16);
  EXPECT_EQ(formBuildError(seq), "(built)");
  PlanSpec sliced;
  sliced.schedule = "gpipe";
  sliced.tokenSlices = "4";
  EXPECT_EQ(formBuildError(sliced), "(built)");
  PlanSpec a2a;
  a2a.dataParallel = 2;
  a2a.a2aMb = 1;
  a2a.uniform.linkGbps = 100;
  EXPECT_EQ(formBuildError(a2a), "(built)");
}

}  // namespace
}  // namespace ps::runtime
