// Issue 31 §1: a transfer is its outermost labelled range (NestedTransfers.h), batched
// send+receive labels are two ops, and unindexed labels are numbered by order
// (OrderedMicrobatches.h), all through buildRankOps on raw events.

#include <gtest/gtest.h>

#include <string>

#include "trace/import/OpBuilder.h"

namespace ps::trace::import {
namespace {

struct Ranges {
  RawRankTrace raw;
  void add(EventSource source, const std::string& name, std::int64_t start, std::int64_t end,
           std::int32_t track = 1) {
    RawEvent e;
    e.source = source;
    e.name = raw.intern(name);
    e.start_ns = start;
    e.end_ns = end;
    e.track = track;
    raw.events.push_back(e);
  }
  void cpu(const std::string& name, std::int64_t start, std::int64_t end, std::int32_t track = 1) {
    add(EventSource::CpuAnnotation, name, start, end, track);
  }
  RankOps build(int rank = 1, int ranks = 4) {
    RecognitionStats stats;
    auto ops = buildRankOps(raw, rank, ranks, OpRecognizer{}, stats);
    EXPECT_TRUE(ops.ok()) << ops.error();
    nested = stats.nestedTransfers;
    return std::move(*ops);
  }
  std::int64_t nested = 0;
};

std::vector<std::string> names(const RankOps& ops) {
  std::vector<std::string> out;
  for (const auto& op : ops.ops)
    out.push_back(std::string(opKindName(op.kind)) + " " + op.name.value_or(""));
  return out;
}

TEST(NestedTransfers, CallsInsideALabelledTransferArePartOfIt) {
  Ranges r;
  // A gradient's send: the label says SEND_B; c10d's and gloo's ranges inside name no direction.
  r.cpu("PP:1SEND_B2", 1000, 1030);
  r.cpu("c10d::send", 1002, 1028);
  r.cpu("gloo:send", 1004, 1025);
  // A blocking receive whose gloo range closes after the label (asynchronous work): it starts
  // inside, so it is still part of it.
  r.cpu("PP:1RECV_F3", 2000, 2500);
  r.cpu("gloo:recv", 2010, 2600);
  const RankOps ops = r.build();
  EXPECT_EQ(names(ops), (std::vector<std::string>{"SEND_B PP:1SEND_B2", "RECV_F PP:1RECV_F3"}));
  EXPECT_EQ(r.nested, 3);
  EXPECT_EQ(ops.ops[0].peer_rank, 0);  // the looped-chain neighbour, as before
  EXPECT_EQ(ops.hostTimed, (std::vector<bool>{true, true}));
}

TEST(NestedTransfers, OnlyTheSameSideOnTheSameTrackIsAbsorbed) {
  Ranges r;
  r.cpu("PP:1SEND_F0", 1000, 1100);
  r.cpu("gloo:recv", 1010, 1090);               // a receive inside a send: its own op
  r.cpu("gloo:send", 1020, 1030, /*track=*/2);  // another thread: its own op
  r.cpu("gloo:send", 1200, 1210);               // after the label: its own op
  r.cpu("PP:1F0", 3000, 4000);
  r.cpu("gloo:send", 3100, 3110);  // inside compute: its own op
  const RankOps ops = r.build();
  EXPECT_EQ(names(ops),
            (std::vector<std::string>{"SEND_F PP:1SEND_F0", "RECV_F gloo:recv", "SEND_F gloo:send",
                                      "SEND_F gloo:send", "F PP:1F0", "SEND_F gloo:send"}));
  EXPECT_EQ(r.nested, 0);
}

TEST(NestedTransfers, ALabelledTransferOnTheGpuStillAbsorbsItsNcclKernel) {
  Ranges r;
  r.add(EventSource::GpuAnnotation, "PP:1SEND_F0", 1000, 2000, 7);
  r.add(EventSource::GpuAnnotation, "nccl:send", 1000, 2000, 7);  // the call, projected too
  RawEvent kernel;
  kernel.source = EventSource::NcclKernel;
  kernel.comm = CommOp::Send;
  kernel.name = r.raw.intern("ncclDevKernel_SendRecv");
  kernel.start_ns = 1100;
  kernel.end_ns = 1900;
  kernel.track = 7;
  kernel.peer = 2;
  kernel.bytes = 4096;
  r.raw.events.push_back(kernel);
  const RankOps ops = r.build();
  ASSERT_EQ(names(ops), (std::vector<std::string>{"SEND_F PP:1SEND_F0"}));
  EXPECT_EQ(ops.ops[0].peer_rank, 2);
  EXPECT_EQ(ops.ops[0].bytes, 4096);
  EXPECT_EQ(ops.hostTimed, (std::vector<bool>{false}));
}

TEST(NestedTransfers, ABatchedSendAndReceiveIsTwoOpsNumberedByOrder) {
  Ranges r;
  // Megatron's 1F1B steady state on rank 1 of 4: unindexed labels, numbered per kind.
  r.cpu("forward-recv", 0, 100);
  r.cpu("forward-compute", 100, 1100);
  r.cpu("forward-send-backward-recv", 1100, 1400);
  r.cpu("gloo:send", 1102, 1120);
  r.cpu("gloo:recv", 1125, 1390);
  r.cpu("backward-compute", 1400, 3400);
  r.cpu("backward-send-forward-recv", 3400, 3600);
  r.cpu("forward-compute", 3600, 4600);
  r.cpu("forward-send-backward-recv", 4600, 4900);
  r.cpu("backward-compute", 4900, 6900);
  r.cpu("backward-send", 6900, 6920);
  const RankOps ops = r.build(1, 4);
  std::vector<std::string> got;
  for (const auto& op : ops.ops)
    got.push_back(std::string(opKindName(op.kind)) + std::to_string(op.microbatch.value_or(-1)) +
                  "@" + std::to_string(op.stage.value_or(-1)) + ">" +
                  std::to_string(op.peer_rank.value_or(-1)));
  EXPECT_EQ(got,
            (std::vector<std::string>{"RECV_F0@1>0", "F0@1>-1", "SEND_F0@1>2", "RECV_B0@1>2",
                                      "B0@1>-1", "SEND_B0@1>0", "RECV_F1@1>0", "F1@1>-1",
                                      "SEND_F1@1>2", "RECV_B1@1>2", "B1@1>-1", "SEND_B1@1>0"}));
  EXPECT_EQ(r.nested, 2);
}

TEST(NestedTransfers, NumbersRestartEachStepAndIndexedLabelsKeepTheirs) {
  Ranges r;
  r.raw.steps = {{0, 5000, 4}, {5000, 10000, 5}};
  r.cpu("forward-compute", 100, 200);
  r.cpu("forward-compute", 300, 400);
  r.cpu("forward-compute", 5100, 5200);
  r.cpu("PP:1F7", 5300, 5400);
  r.cpu("gloo:send", 5500, 5510);  // a call outside any label: not numbered, no stage
  const RankOps ops = r.build();
  ASSERT_EQ(ops.ops.size(), 5U);
  EXPECT_EQ(ops.ops[0].microbatch, 0);
  EXPECT_EQ(ops.ops[1].microbatch, 1);
  EXPECT_EQ(ops.ops[2].microbatch, 0);  // step 5 counts from 0 again
  EXPECT_EQ(ops.ops[2].step, 5);
  EXPECT_EQ(ops.ops[3].microbatch, 7);
  EXPECT_FALSE(ops.ops[4].microbatch);
  EXPECT_FALSE(ops.ops[4].stage);
}

}  // namespace
}  // namespace ps::trace::import
