// Issue 31 §1, last bullet: a hand-written 4-rank gloo 1F1B run profiled by PyTorch in the legacy
// format (one file per rank, ranks from the file names), imported as a user would. Each labelled
// transfer holds the c10d / gloo ranges that did it; sends are isend posts that end in
// microseconds; each rank's clock is off by milliseconds.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "tests/common/TestUtil.h"
#include "tests/trace/import/GlooPipelineFixture.h"
#include "trace/analysis/BubbleAttribution.h"
#include "trace/analysis/StepGraph.h"
#include "trace/import/ImportPipeline.h"
#include "trace/import/ImportReaders.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

using testing::GlooLabels;
using testing::GlooRun;
using testing::GlooRunSpec;
using testing::ImportedGloo;

ImportedGloo importGloo(const test::TempDir& dir, const GlooRunSpec& spec) {
  auto imported = testing::importGlooPipeline(dir.path().string(), spec);
  EXPECT_TRUE(imported.ok()) << imported.error();
  return imported.ok() ? std::move(*imported) : ImportedGloo{};
}

std::int64_t count(const ImportedRun& run, OpKind kind) {
  return run.stats.opsByKind[static_cast<int>(kind)];
}

std::int64_t trueTransfers(const GlooRun& truth, bool forward) {
  return std::count_if(truth.transfers.begin(), truth.transfers.end(),
                       [&](const testing::GlooTransfer& t) { return t.forward == forward; });
}

// On the common axis: receives that end before their matching send (same step, micro-batch and
// direction, neighbouring ranks) starts.
int receivesBeforeTheirSends(const ImportedRun& run) {
  using Key = std::tuple<int, bool, int, int>;  // step, forward, sending rank, micro-batch
  std::map<Key, const OpRecord*> sends, recvs;
  for (const auto& op : run.ops) {
    if (!op.microbatch) continue;
    const bool forward = op.kind == OpKind::SEND_F || op.kind == OpKind::RECV_F;
    if (isSend(op.kind)) sends[{op.step, forward, op.rank, *op.microbatch}] = &op;
    if (isRecv(op.kind))
      recvs[{op.step, forward, forward ? op.rank - 1 : op.rank + 1, *op.microbatch}] = &op;
  }
  int violations = 0;
  for (const auto& [key, recv] : recvs) {
    auto it = sends.find(key);
    EXPECT_NE(it, sends.end()) << "a receive without its send";
    if (it != sends.end() && recv->end_ns < it->second->start_ns) ++violations;
  }
  return violations;
}

TEST(GlooPipelineImport, EachTransferIsItsOutermostLabelledRange) {
  test::TempDir dir;
  const auto [truth, run] = importGloo(dir, GlooRunSpec{});
  EXPECT_EQ(run.header.info.num_ranks, 4);
  EXPECT_EQ(run.steps, 3);
  EXPECT_EQ(count(run, OpKind::F), 4 * 6 * 3);
  EXPECT_EQ(count(run, OpKind::B), 4 * 6 * 3);
  // 3 sending ranks x 6 micro-batches x 3 steps each way: not 3x that (the gloo:send / gloo:recv
  // ranges inside the labels were ops of their own, both directions counted as SEND_F / RECV_F).
  ASSERT_EQ(trueTransfers(truth, true), 54);
  EXPECT_EQ(count(run, OpKind::SEND_F), 54);
  EXPECT_EQ(count(run, OpKind::RECV_F), 54);
  EXPECT_EQ(count(run, OpKind::SEND_B), 54);
  EXPECT_EQ(count(run, OpKind::RECV_B), 54);
  // The gloo:send / gloo:recv inside each labelled transfer (c10d's are cpu_op: not read).
  EXPECT_EQ(run.stats.nestedTransfers, 4 * 54);
  EXPECT_NE(formatImportSummary(run).find("216 communication ranges (c10d / gloo / nccl calls) "
                                          "inside labelled transfers are part of them"),
            std::string::npos);
  for (const auto& op : run.ops) {
    const std::string name = op.name.value_or("");
    EXPECT_TRUE(name.starts_with("PP:") || name.starts_with("Optimizer.step"))
        << name << " at " << op.start_ns << " on rank " << op.rank;
  }
}

TEST(GlooPipelineImport, TheAutogradProfilersOwnExportToo) {
  // No "cat": the c10d::send / c10d::recv_ ranges are labels as well, nested one level deeper.
  test::TempDir dir;
  GlooRunSpec spec;
  spec.autogradExport = true;
  const auto [truth, run] = importGloo(dir, spec);
  EXPECT_EQ(count(run, OpKind::SEND_F), 54);
  EXPECT_EQ(count(run, OpKind::RECV_F), 54);
  EXPECT_EQ(count(run, OpKind::SEND_B), 54);
  EXPECT_EQ(count(run, OpKind::RECV_B), 54);
  EXPECT_EQ(run.stats.nestedTransfers, 2 * 4 * 54);  // c10d's and gloo's
  EXPECT_EQ(run.alignment.causalityViolations, 0);
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(run.alignment.offsetNs[r], truth.trueOffsetNs[r]) << "rank " << r;
}

TEST(GlooPipelineImport, HostSideTransfersAlignByCausality) {
  test::TempDir dir;
  const auto [truth, run] = importGloo(dir, GlooRunSpec{});
  EXPECT_EQ(run.alignment.used, AlignMode::P2p);
  EXPECT_EQ(run.alignment.causalityViolations, 0) << formatImportSummary(run);
  EXPECT_EQ(receivesBeforeTheirSends(run), 0) << formatImportSummary(run);
  // Every receive ends at least the wire latency after its send started, so the truth lies
  // inside what causality allows, and the middle of that is within a latency or so of it.
  for (int r = 0; r < 4; ++r)
    EXPECT_NEAR(run.alignment.offsetNs[r], truth.trueOffsetNs[r], 300'000) << "rank " << r;
  // The interval it could not narrow holds the fitted offset and the truth, and is reported.
  ASSERT_EQ(run.alignment.offsetLowNs.size(), 4U);
  ASSERT_EQ(run.alignment.offsetHighNs.size(), 4U);
  const std::string summary = formatImportSummary(run);
  for (int r = 1; r < 4; ++r) {
    const std::int64_t lo = run.alignment.offsetLowNs[r], hi = run.alignment.offsetHighNs[r];
    EXPECT_LE(lo, run.alignment.offsetNs[r]) << "rank " << r;
    EXPECT_GE(hi, run.alignment.offsetNs[r]) << "rank " << r;
    EXPECT_LE(lo, truth.trueOffsetNs[r]) << "rank " << r;
    EXPECT_GE(hi, truth.trueOffsetNs[r]) << "rank " << r;
    // Each neighbour pair is known to within its fastest transfer each way (150 us): narrow.
    EXPECT_LE(hi - lo, 2 * r * 150'000) << "rank " << r;
    EXPECT_NE(summary.find("rank " + std::to_string(r) + ": offset known within ±"),
              std::string::npos)
        << summary;
  }
  EXPECT_EQ(run.alignment.residualNs, 450'000);  // rank 3, three links from rank 0
  EXPECT_NE(summary.find("offsets fitted by causality over 108 pairs"), std::string::npos)
      << summary;
}

TEST(GlooPipelineImport, UnindexedMegatronLabelsNumberMicroBatchesByOrder) {
  test::TempDir dir;
  GlooRunSpec spec;
  spec.labels = GlooLabels::MegatronUnindexed;
  const auto [truth, run] = importGloo(dir, spec);
  EXPECT_EQ(count(run, OpKind::F), 4 * 6 * 3);
  EXPECT_EQ(count(run, OpKind::B), 4 * 6 * 3);
  // forward-send-backward-recv is a send and a receive: every transfer is there once.
  EXPECT_EQ(count(run, OpKind::SEND_F), 54);
  EXPECT_EQ(count(run, OpKind::RECV_F), 54);
  EXPECT_EQ(count(run, OpKind::SEND_B), 54);
  EXPECT_EQ(count(run, OpKind::RECV_B), 54);
  // Per rank, step and kind, the k-th compute op is micro-batch k on the rank's stage.
  std::map<std::tuple<int, int, OpKind>, std::vector<int>> mbs;
  for (const auto& op : run.ops)
    if (op.kind == OpKind::F || op.kind == OpKind::B) {
      EXPECT_EQ(op.stage.value_or(-1), op.rank) << op.name.value_or("");
      mbs[{op.rank, op.step, op.kind}].push_back(op.microbatch.value_or(-1));
    }
  ASSERT_EQ(mbs.size(), 4U * 3U * 2U);
  for (const auto& [key, list] : mbs)
    EXPECT_EQ(list, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // Transfers pair: every one of them is a matched send/receive used by the alignment.
  EXPECT_EQ(run.alignment.used, AlignMode::P2p);
  EXPECT_EQ(run.alignment.matchedEvents, static_cast<std::int64_t>(truth.transfers.size()));
  EXPECT_EQ(run.alignment.causalityViolations, 0);
  EXPECT_EQ(receivesBeforeTheirSends(run), 0);

  // The idle time is explained by the recorded dependencies: hardly any of it is "other".
  auto store = TraceStore::open(dir.file("out.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto id = writeImportedRun(*store, run);
  ASSERT_TRUE(id.ok()) << id.error();
  auto loaded = loadRun(*store, *id);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const StepGraph graph(*loaded);
  const BubbleAttribution bubbles = attributeBubbles(graph);
  const std::int64_t idle = bubbles.run.total();
  ASSERT_GT(idle, 0);
  const double otherShare =
      static_cast<double>(bubbles.run[IdleCause::Other]) / static_cast<double>(idle);
  EXPECT_LT(otherShare, 0.01) << "other " << bubbles.run[IdleCause::Other] << " ns of " << idle;
}

}  // namespace
}  // namespace ps::trace::import
