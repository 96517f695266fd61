#include <gtest/gtest.h>

#include "trace/OpKind.h"
#include "trace/Units.h"

namespace ps::trace {
namespace {

TEST(Units, DurationsPickTheLargestFittingUnit) {
  EXPECT_EQ(formatDuration(999), "999 ns");
  EXPECT_EQ(formatDuration(1234), "1.234 µs");
  EXPECT_EQ(formatDuration(2'500'000), "2.500 ms");
  EXPECT_EQ(formatDuration(3'000'000'000), "3.000 s");
  EXPECT_EQ(formatDuration(-1500), "-1.500 µs");
}

TEST(Units, BytesUseBinaryUnits) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(std::int64_t{3} << 30), "3.00 GiB");
}

TEST(OpKinds, NamesRoundTripAndLanesFollowKinds) {
  for (int i = 0; i < kOpKindCount; ++i) {
    const auto k = static_cast<OpKind>(i);
    EXPECT_EQ(parseOpKind(opKindName(k)), k);
  }
  EXPECT_EQ(parseOpKind("f"), std::nullopt);
  EXPECT_EQ(laneOf(OpKind::W), Lane::Compute);
  EXPECT_EQ(laneOf(OpKind::SEND_B), Lane::Send);
  EXPECT_EQ(laneOf(OpKind::RECV_F), Lane::Recv);
  EXPECT_EQ(laneOf(OpKind::AR), Lane::Collective);
  EXPECT_EQ(laneOf(OpKind::OTHER), Lane::Other);
  EXPECT_FALSE(isCompute(OpKind::SEND_F));
  EXPECT_TRUE(isCompute(OpKind::FILL));
}

}  // namespace
}  // namespace ps::trace
