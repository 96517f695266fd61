// --compare-sim on ranks sharing a GPU (issue 32 §8): which note the prediction prints and on
// how many SM shares calibration times the layers, from (ranks, devices, --sm-split).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/run/SharedGpuPrediction.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SharedGpuPrediction, RanksWithAGpuEachGetNoNoteAndAWholeGpu) {
  EXPECT_EQ(sharedGpuPredictionNote(4, 4, false), "");
  EXPECT_EQ(sharedGpuPredictionNote(4, 8, true), "");
  EXPECT_EQ(sharedGpuPredictionNote(1, 1, true), "");
  EXPECT_EQ(sharedGpuPredictionNote(4, 0, false), "");  // no device known: nothing to say
  EXPECT_EQ(calibrationShareOf(4, 4, true), 1);
  EXPECT_EQ(calibrationShareOf(2, 8, true), 1);
}

TEST(SharedGpuPrediction, SharedWithoutSmSplitSaysThePredictionAssumesAGpuPerRank) {
  const std::string note = sharedGpuPredictionNote(4, 1, false);
  EXPECT_THAT(note, HasSubstr("the prediction assumes one GPU per rank"));
  EXPECT_THAT(note, HasSubstr("4 ranks share 1 GPU"));
  EXPECT_THAT(note, HasSubstr("give --sm-split"));
  EXPECT_EQ(calibrationShareOf(4, 1, false), 1);  // the whole GPU
}

TEST(SharedGpuPrediction, SharedWithSmSplitSaysCalibrationUsedOneSharePerRank) {
  const std::string note = sharedGpuPredictionNote(4, 1, true);
  EXPECT_THAT(note, HasSubstr("--sm-split: 4 ranks share 1 GPU"));
  EXPECT_THAT(note, HasSubstr("one SM share of 4 per GPU"));
  EXPECT_THAT(note, Not(HasSubstr("assumes one GPU per rank")));
  EXPECT_EQ(calibrationShareOf(4, 1, true), 4);
  // Five ranks on two GPUs: the contiguous placement puts three on the first.
  EXPECT_EQ(calibrationShareOf(5, 2, true), 3);
  EXPECT_THAT(sharedGpuPredictionNote(5, 2, true), HasSubstr("5 ranks share 2 GPUs"));
  EXPECT_THAT(sharedGpuPredictionNote(5, 2, true), HasSubstr("one SM share of 3 per GPU"));
}

}  // namespace
}  // namespace ps::runtime
