// Dependencies read back from a recorded run by the kind rules of DESIGN §2: each op's inputs and
// outputs on a small 1F1B run with transfers, without transfers, with split backward, with the
// optimizer per rank; send/receive pairing; outputs are exactly the inverse of inputs.

#include "trace/analysis/OpRelations.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/trace/OpRefPrinter.h"
#include "tests/trace/TraceBuilder.h"

namespace ps::trace {

namespace {

OpRecord op(int rank, OpKind kind, int stage, int mb, std::int64_t start, std::int64_t end,
            int peer = -1, int step = 0) {
  OpRecord r{rank, kind, stage, mb, step, start, end, {}, {}, {}};
  if (stage < 0) r.stage.reset();
  if (mb < 0) r.microbatch.reset();
  if (peer >= 0) {
    r.peer_rank = peer;
    r.bytes = 1024;
  }
  return r;
}

// 1F1B, p=2, m=2, t=10: rank 0 runs F0 F1 B0 B1 OPT, rank 1 F0 B0 F1 B1 OPT, with the transfers
// recorded (SEND at the producer's stage, RECV at the consumer's, as the simulator writes them).
TraceBatch oneFOneB(bool transfers) {
  TraceBatch b;
  auto add = [&](OpRecord r) { b.ops.push_back(r); };
  add(op(0, OpKind::F, 0, 0, 0, 10));
  add(op(0, OpKind::F, 0, 1, 10, 20));
  add(op(1, OpKind::F, 1, 0, 10, 20));
  add(op(1, OpKind::B, 1, 0, 20, 40));
  add(op(1, OpKind::F, 1, 1, 40, 50));
  add(op(0, OpKind::B, 0, 0, 40, 60));
  add(op(1, OpKind::B, 1, 1, 50, 70));
  add(op(0, OpKind::B, 0, 1, 70, 90));
  add(op(0, OpKind::OPT, -1, -1, 90, 95));
  add(op(1, OpKind::OPT, -1, -1, 90, 95));
  if (transfers)
    for (int m = 0; m < 2; ++m) {
      const std::int64_t f = 10 + 10 * m, bw = m == 0 ? 40 : 70;
      add(op(0, OpKind::SEND_F, 0, m, f, f, 1));
      add(op(1, OpKind::RECV_F, 1, m, f, f, 0));
      add(op(1, OpKind::SEND_B, 1, m, bw, bw, 0));
      add(op(0, OpKind::RECV_B, 0, m, bw, bw, 1));
    }
  return b;
}

RunTrace load(const TraceBatch& batch, const std::string& config = "{}") {
  RunHeader h = test::simpleHeader(2);
  h.info.config_json = config;
  return test::roundTrip(h, batch);
}

// The one op of `rank` with that kind, stage and micro-batch.
OpRef find(const RunTrace& run, int rank, OpKind kind, int stage, int mb) {
  const Lane lane = laneOf(kind);
  const OpColumns& c = run.ranks[rank].lane(lane);
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c.kind[i] == kind && c.stage[i] == stage && c.microbatch[i] == mb) return {rank, lane, i};
  ADD_FAILURE() << "no such op on rank " << rank;
  return {};
}

std::vector<OpRef> sorted(std::vector<OpRef> v) {
  std::sort(v.begin(), v.end(), [](const OpRef& a, const OpRef& b) {
    return std::tie(a.rank, a.lane, a.index) < std::tie(b.rank, b.lane, b.index);
  });
  return v;
}

// Every op's outputs are exactly the ops whose inputs hold it.
void expectOutputsInvertInputs(const RunTrace& run) {
  std::vector<OpRef> all;
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (int l = 0; l < kLaneCount; ++l)
      for (std::size_t i = 0; i < run.ranks[r].lanes[l].size(); ++i)
        all.push_back({static_cast<int>(r), static_cast<Lane>(l), i});
  for (const OpRef& a : all) {
    std::vector<OpRef> waiting;
    for (const OpRef& b : all) {
      const auto in = opInputs(run, b);
      if (std::find(in.begin(), in.end(), a) != in.end()) waiting.push_back(b);
    }
    EXPECT_EQ(sorted(opRelations(run, a).out), sorted(waiting));
  }
}

using V = std::vector<OpRef>;

TEST(OpRelations, OneFOneBWithTransfersGoesThroughTheReceives) {
  const RunTrace run = load(oneFOneB(true));
  const OpRef f00 = find(run, 0, OpKind::F, 0, 0), f10 = find(run, 1, OpKind::F, 1, 0);
  const OpRef b00 = find(run, 0, OpKind::B, 0, 0), b10 = find(run, 1, OpKind::B, 1, 0);
  const OpRef sendF = find(run, 0, OpKind::SEND_F, 0, 0),
              recvF = find(run, 1, OpKind::RECV_F, 1, 0);
  const OpRef sendB = find(run, 1, OpKind::SEND_B, 1, 0),
              recvB = find(run, 0, OpKind::RECV_B, 0, 0);
  const OpRef opt0 = find(run, 0, OpKind::OPT, -1, -1), opt1 = find(run, 1, OpKind::OPT, -1, -1);

  auto rel = opRelations(run, f00);
  EXPECT_EQ(rel.in, V{});
  EXPECT_EQ(sorted(rel.out), sorted({b00, sendF}));
  rel = opRelations(run, sendF);
  EXPECT_EQ(rel.in, V{f00});
  EXPECT_EQ(rel.out, V{recvF});
  rel = opRelations(run, recvF);
  EXPECT_EQ(rel.in, V{sendF});
  EXPECT_EQ(rel.out, V{f10});
  rel = opRelations(run, f10);
  EXPECT_EQ(rel.in, V{recvF}) << "through the RECV_F that brought it, not straight to F(0,0)";
  EXPECT_EQ(rel.out, V{b10});
  rel = opRelations(run, b10);
  EXPECT_EQ(rel.in, V{f10});
  EXPECT_EQ(sorted(rel.out), sorted({sendB, opt0, opt1}));
  rel = opRelations(run, sendB);
  EXPECT_EQ(rel.in, V{b10});
  EXPECT_EQ(rel.out, V{recvB});
  rel = opRelations(run, recvB);
  EXPECT_EQ(rel.in, V{sendB});
  EXPECT_EQ(rel.out, V{b00});
  rel = opRelations(run, b00);
  EXPECT_EQ(sorted(rel.in), sorted({f00, recvB}));
  EXPECT_EQ(sorted(rel.out), sorted({opt0, opt1}));
  rel = opRelations(run, opt0);
  EXPECT_EQ(sorted(rel.in),
            sorted({b00, find(run, 0, OpKind::B, 0, 1), b10, find(run, 1, OpKind::B, 1, 1)}));
  EXPECT_EQ(rel.out, V{});

  EXPECT_EQ(matchingTransfer(run, sendF), recvF);
  EXPECT_EQ(matchingTransfer(run, recvB), sendB);
  EXPECT_EQ(matchingTransfer(run, f00), std::nullopt);
  expectOutputsInvertInputs(run);
}

TEST(OpRelations, WithoutTransfersComputeOpsDependDirectly) {
  const RunTrace run = load(oneFOneB(false));
  const OpRef f00 = find(run, 0, OpKind::F, 0, 0), f10 = find(run, 1, OpKind::F, 1, 0);
  const OpRef b00 = find(run, 0, OpKind::B, 0, 0), b10 = find(run, 1, OpKind::B, 1, 0);
  EXPECT_EQ(opRelations(run, f10).in, V{f00});
  EXPECT_EQ(sorted(opRelations(run, f00).out), sorted({f10, b00}));
  EXPECT_EQ(sorted(opRelations(run, b00).in), sorted({f00, b10}));
  expectOutputsInvertInputs(run);
}

TEST(OpRelations, OptimizerWithoutBarrierWaitsForItsOwnRank) {
  const RunTrace run = load(oneFOneB(true), R"({"optimizer_sync":"none"})");
  const OpRef opt1 = find(run, 1, OpKind::OPT, -1, -1);
  EXPECT_EQ(sorted(opRelations(run, opt1).in),
            sorted({find(run, 1, OpKind::B, 1, 0), find(run, 1, OpKind::B, 1, 1)}));
  EXPECT_EQ(opRelations(run, find(run, 0, OpKind::B, 0, 1)).out,
            V{find(run, 0, OpKind::OPT, -1, -1)});
  expectOutputsInvertInputs(run);
}

TEST(OpRelations, SplitBackwardAndInterleavedStages) {
  // Two ranks, four virtual stages looped (0,2 on rank 0; 1,3 on rank 1), one micro-batch,
  // backward split into I and W; no transfers recorded.
  TraceBatch b;
  std::int64_t t = 0;
  for (int s = 0; s < 4; ++s, t += 10)
    b.ops.push_back(op(s % 2, OpKind::F, s, 0, t, t + 10));
  for (int s = 3; s >= 0; --s, t += 10)
    b.ops.push_back(op(s % 2, OpKind::I, s, 0, t, t + 10));
  for (int s = 0; s < 4; ++s)
    b.ops.push_back(op(s % 2, OpKind::W, s, 0, t + 10 * s, t + 10 * s + 5));
  RunHeader h = test::simpleHeader(2);
  h.info.num_stages = 4;
  h.stages = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 0, 2, 2}, {3, 1, 3, 3}};
  const RunTrace run = test::roundTrip(h, b);
  const OpRef f1 = find(run, 1, OpKind::F, 1, 0), f2 = find(run, 0, OpKind::F, 2, 0);
  const OpRef i2 = find(run, 0, OpKind::I, 2, 0), i3 = find(run, 1, OpKind::I, 3, 0);
  const OpRef w2 = find(run, 0, OpKind::W, 2, 0);
  EXPECT_EQ(opRelations(run, f2).in, V{f1}) << "stage 1 lives on rank 1";
  EXPECT_EQ(sorted(opRelations(run, i2).in), sorted({f2, i3}));
  EXPECT_EQ(sorted(opRelations(run, i2).out), sorted({find(run, 1, OpKind::I, 1, 0), w2}));
  EXPECT_EQ(opRelations(run, w2).in, V{i2});
  expectOutputsInvertInputs(run);
}

TEST(OpRelations, EqualLookingTransfersPairInOrder) {
  // Imported transfers without micro-batch, both ends labelled with the sender's stage.
  TraceBatch b;
  b.ops.push_back(op(0, OpKind::SEND_F, 0, -1, 0, 5, 1));
  b.ops.push_back(op(0, OpKind::SEND_F, 0, -1, 10, 15, 1));
  b.ops.push_back(op(1, OpKind::RECV_F, 0, -1, 2, 6, 0));
  b.ops.push_back(op(1, OpKind::RECV_F, 0, -1, 12, 16, 0));
  const RunTrace run = load(b);
  const OpRef s0{0, Lane::Send, 0}, s1{0, Lane::Send, 1}, r0{1, Lane::Recv, 0},
      r1{1, Lane::Recv, 1};
  EXPECT_EQ(matchingTransfer(run, s0), r0);
  EXPECT_EQ(matchingTransfer(run, s1), r1);
  EXPECT_EQ(matchingTransfer(run, r1), s1);
  EXPECT_EQ(opRelations(run, r1).in, V{s1});
  EXPECT_EQ(opRelations(run, OpRef{5, Lane::Send, 0}).in, V{}) << "a bad ref has no relations";
  EXPECT_EQ(opRelations(run, OpRef{0, Lane::Send, 99}).out, V{});
}

}  // namespace
}  // namespace ps::trace
