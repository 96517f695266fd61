// Issue 31 §1: the p2p clock fit of host-side transfers by causality (ClockCausality.h), on
// ranks of ops built by hand: known offsets, traffic one way only, contradicting pairs, a cycle
// of ranks, and device-timed transfers left to the "ends together" fit.

#include <gtest/gtest.h>

#include <string>

#include "trace/import/ClockAlignment.h"

namespace ps::trace::import {
namespace {

// Ranks whose clocks are off by skew[r] (local = true + skew), all ops host-timed.
struct HostRanks {
  std::vector<RankOps> ranks;
  std::vector<std::int64_t> skew;
  explicit HostRanks(std::vector<std::int64_t> skews) : skew(std::move(skews)) {
    ranks.resize(skew.size());
    for (std::size_t r = 0; r < skew.size(); ++r)
      ranks[r].rank = static_cast<int>(r);
  }
  void op(int rank, OpKind kind, int peer, std::int64_t start, std::int64_t end) {
    OpRecord o;
    o.rank = rank;
    o.kind = kind;
    o.peer_rank = peer;
    o.start_ns = start + skew[rank];
    o.end_ns = end + skew[rank];
    ranks[rank].ops.push_back(o);
    ranks[rank].hostTimed.push_back(true);
  }
  // A send posted at `t` (ending 20 ns later) and its receive, posted at `posted`, that ends when
  // the data lands `latency` after the send started.
  void transfer(int from, int to, std::int64_t t, std::int64_t posted, std::int64_t latency) {
    const bool forward = to > from;
    op(from, forward ? OpKind::SEND_F : OpKind::SEND_B, to, t, t + 20);
    op(to, forward ? OpKind::RECV_F : OpKind::RECV_B, from, posted,
       std::max(posted + 10, t + latency));
  }
  Result<ClockAlignment> align() const {
    return alignClocks(ranks, std::vector<std::optional<std::int64_t>>(ranks.size()),
                       AlignMode::P2p);
  }
};

bool hasNote(const ClockAlignment& a, const std::string& text) {
  for (const auto& n : a.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(ClockCausality, TrafficBothWaysBoundsTheOffsetFromBothSides) {
  HostRanks h({0, 70'000});
  for (int k = 0; k < 5; ++k) {
    h.transfer(0, 1, k * 10'000, k * 10'000 - 500, 300);            // receiver waiting
    h.transfer(1, 0, k * 10'000 + 5'000, k * 10'000 + 4'000, 500);  // receiver waiting
  }
  auto a = h.align();
  ASSERT_TRUE(a.ok()) << a.error();
  // -skew - 300 (a forward receive ends 300 after its send) to -skew + 500 (a backward one).
  ASSERT_EQ(a->offsetLowNs.size(), 2U);
  EXPECT_EQ(a->offsetLowNs[1], -70'000 - 300);
  EXPECT_EQ(a->offsetHighNs[1], -70'000 + 500);
  EXPECT_EQ(a->offsetNs[1], -70'000 + 100);  // the middle
  EXPECT_EQ(a->residualNs, 400);
  EXPECT_EQ(a->causalityViolations, 0);
  EXPECT_TRUE(hasNote(*a, "rank 1: offset known within ±400 ns")) << a->notes.back();
}

TEST(ClockCausality, TrafficOneWayBoundsItFromOneSideOnly) {
  HostRanks h({0, -40'000, 25'000});
  for (int k = 0; k < 4; ++k) {
    h.transfer(0, 1, k * 10'000, k * 10'000 + 3'000, 200);  // data already there
    h.transfer(1, 2, k * 10'000 + 4'000, k * 10'000 + 4'100, 200);
  }
  auto a = h.align();
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->causalityViolations, 0);
  ASSERT_EQ(a->offsetHighNs.size(), 3U);
  EXPECT_EQ(a->offsetHighNs[1], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(a->offsetLowNs[1], 40'000 - 3'010);  // the earliest receive end allows no less
  EXPECT_GE(a->offsetNs[1], a->offsetLowNs[1]);
  EXPECT_GE(a->offsetNs[2], a->offsetLowNs[2]);
  EXPECT_TRUE(hasNote(*a, "rank 2: offset at least")) << a->notes.back();
}

TEST(ClockCausality, ACycleOfRanksGetsOffsetsThatMeetEveryConstraint) {
  // A looped chain 0 -> 1 -> 2 -> 0 with gradients going back: constraints around the cycle.
  HostRanks h({0, 12'000, -9'000});
  for (int k = 0; k < 3; ++k)
    for (int r = 0; r < 3; ++r) {
      const std::int64_t t = k * 100'000 + r * 10'000;
      h.transfer(r, (r + 1) % 3, t, t - 100, 300 + 50 * r);
      h.transfer((r + 1) % 3, r, t + 5'000, t + 4'000, 700 - 100 * r);
    }
  auto a = h.align();
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->causalityViolations, 0);
  for (int r = 0; r < 3; ++r) {
    EXPECT_LE(a->offsetLowNs[r], -h.skew[r]) << r;  // the truth is always allowed
    EXPECT_GE(a->offsetHighNs[r], -h.skew[r]) << r;
    EXPECT_LE(a->offsetLowNs[r], a->offsetNs[r]) << r;
    EXPECT_GE(a->offsetHighNs[r], a->offsetNs[r]) << r;
    EXPECT_NEAR(a->offsetNs[r], -h.skew[r], 700) << r;
  }
}

TEST(ClockCausality, ContradictingPairsFallBackToEndsTogetherAndSaySo) {
  HostRanks h({0, 0});
  // Both ways, each receive ends long before its send starts: no offset can explain that.
  h.op(0, OpKind::SEND_F, 1, 50'000, 50'020);
  h.op(1, OpKind::RECV_F, 0, 0, 1'000);
  h.op(1, OpKind::SEND_B, 0, 60'000, 60'020);
  h.op(0, OpKind::RECV_B, 1, 0, 1'000);
  auto a = h.align();
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_TRUE(a->offsetLowNs.empty());
  EXPECT_GT(a->causalityViolations, 0);
  EXPECT_TRUE(hasNote(*a, "no clock offsets let every receive end after its send starts"));
}

TEST(ClockCausality, DeviceTimedTransfersStillEndTogether) {
  HostRanks h({0, 30'000});
  for (int k = 0; k < 3; ++k) {
    h.op(0, OpKind::SEND_F, 1, k * 10'000, k * 10'000 + 900);  // NCCL kernels: end together
    h.op(1, OpKind::RECV_F, 0, k * 10'000 + 100, k * 10'000 + 900);
  }
  for (auto& r : h.ranks)
    r.hostTimed.clear();  // unknown: device-timed
  auto a = h.align();
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_TRUE(a->offsetLowNs.empty());
  EXPECT_EQ(a->offsetNs[1], -30'000);
  EXPECT_EQ(a->residualNs, 0);
}

}  // namespace
}  // namespace ps::trace::import
