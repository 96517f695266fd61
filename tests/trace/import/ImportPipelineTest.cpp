// The shared import stages on raw traces built in memory from the closed-form GPipe run
// (trace/Synthetic.h), with planted clock skews: recognition, alignment, peer waits, store.

#include "trace/import/ImportPipeline.h"

#include <gtest/gtest.h>

#include "tests/common/TestUtil.h"
#include "trace/Synthetic.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"

namespace ps::trace::import {
namespace {

// One RawRankTrace per rank of the synthetic GPipe step: compute ops as GPU annotations named
// like torch pipelining, sends/receives as NCCL kernels with their peer, each rank's clock off
// by skews[r].
std::vector<RawRankTrace> syntheticRaw(const SyntheticGpipe& g,
                                       const std::vector<std::int64_t>& skews,
                                       bool labelsOnCpuToo = false) {
  std::vector<RawRankTrace> out(static_cast<std::size_t>(g.ranks));
  for (int r = 0; r < g.ranks; ++r) {
    out[r].file = "/tmp/trace_rank" + std::to_string(r) + ".json";
    out[r].format = "kineto";
    out[r].rank = r;
    out[r].worldSize = g.ranks;
    out[r].wallClockOffsetNs = 1'700'000'000'000'000'000 - skews[r];
  }
  const TraceBatch batch = syntheticGpipeStep(g, 0);
  for (const auto& op : batch.ops) {
    RawRankTrace& raw = out[op.rank];
    RawEvent e;
    e.start_ns = op.start_ns + skews[op.rank];
    e.end_ns = op.end_ns + skews[op.rank];
    e.step = 7;  // as a file would number it; the import starts at step 0
    if (isCompute(op.kind)) {
      e.source = EventSource::GpuAnnotation;
      e.name = raw.intern("PP:" + std::to_string(*op.stage) + std::string(opKindName(op.kind)) +
                          std::to_string(*op.microbatch));
      if (labelsOnCpuToo) {
        RawEvent cpu = e;
        cpu.source = EventSource::CpuAnnotation;
        cpu.start_ns -= 500;  // launched ahead of the GPU
        cpu.end_ns -= 500;
        raw.events.push_back(cpu);
      }
    } else {
      e.source = EventSource::NcclKernel;
      e.comm = isSend(op.kind) ? CommOp::Send : CommOp::Recv;
      e.name = raw.intern(isSend(op.kind) ? "ncclDevKernel_Send" : "ncclDevKernel_Recv");
      e.peer = *op.peer_rank;
      e.bytes = op.bytes.value_or(-1);
    }
    raw.events.push_back(e);
  }
  return out;
}

TEST(ImportPipelineTest, P2pAlignmentRecoversPlantedSkewsAndTheBubble) {
  SyntheticGpipe g;  // p = 4, m = 8
  const std::vector<std::int64_t> skews{0, 37'000, -12'345, 250'000};
  ImportOptions options;
  options.format = "kineto";
  options.align = AlignMode::P2p;
  auto run = assembleImport(syntheticRaw(g, skews, true), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->alignment.used, AlignMode::P2p);
  for (int r = 0; r < g.ranks; ++r)
    EXPECT_NEAR(run->alignment.offsetNs[r], -skews[r], 1000) << "rank " << r;
  EXPECT_LE(run->alignment.residualNs, 1000);
  EXPECT_EQ(run->alignment.causalityViolations, 0);
  EXPECT_EQ(run->steps, 1);
  EXPECT_EQ(run->header.info.num_stages, 4);
  EXPECT_EQ(run->header.info.num_microbatches, 8);
  // 32 F + 32 B from GPU labels (the CPU copies are dropped), 2·3·8 sends + as many receives.
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::F)], 32);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::B)], 32);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::SEND_F)], 24);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::RECV_B)], 24);
  EXPECT_TRUE(run->stats.unknownLabels.empty());

  test::TempDir dir;
  auto store = TraceStore::open(dir.file("out.sqlite"), TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store.ok()) << store.error();
  auto id = writeImportedRun(*store, *run);
  ASSERT_TRUE(id.ok()) << id.error();
  auto loaded = loadRun(*store, *id);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->info.source, "kineto");
  const auto analysis = analyzeRun(*loaded);
  ASSERT_TRUE(analysis.bubble_ratio);
  EXPECT_NEAR(*analysis.bubble_ratio, 3.0 / 11.0, 1e-9);
  auto ranks = store->ranks(*id);
  ASSERT_TRUE(ranks.ok());
  ASSERT_EQ(ranks->size(), 4U);
  EXPECT_NEAR((*ranks)[3].clock_offset_ns, -250'000, 1000);
}

TEST(ImportPipelineTest, WallAlignmentUsesTheFilesUtcBases) {
  SyntheticGpipe g;
  const std::vector<std::int64_t> skews{0, 5'000, 9'000, -3'000};
  ImportOptions options;
  options.format = "kineto";
  options.align = AlignMode::Wall;
  auto run = assembleImport(syntheticRaw(g, skews), options);
  ASSERT_TRUE(run.ok()) << run.error();
  // The synthetic wall bases compensate the skews exactly, as a perfect NTP would.
  for (int r = 0; r < g.ranks; ++r)
    EXPECT_EQ(run->alignment.offsetNs[r], -skews[r]);
}

TEST(ImportPipelineTest, CollectiveAlignmentMatchesCollectiveEnds) {
  std::vector<RawRankTrace> raws(3);
  const std::vector<std::int64_t> skews{0, 40'000, -7'000};
  for (int r = 0; r < 3; ++r) {
    raws[r].file = "r" + std::to_string(r);
    raws[r].rank = r;
    for (int k = 0; k < 5; ++k) {
      RawEvent e;
      e.source = EventSource::NcclKernel;
      e.comm = CommOp::AllReduce;
      e.name = raws[r].intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
      e.start_ns = k * 100'000 + r * 3'000 + skews[r];  // ranks join at different times
      e.end_ns = k * 100'000 + 50'000 + skews[r];       // ...and leave together
      raws[r].events.push_back(e);
    }
  }
  ImportOptions options;
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->alignment.used, AlignMode::Collective);  // auto: no p2p pairs
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(run->alignment.offsetNs[r], -skews[r]);
  EXPECT_EQ(run->alignment.residualNs, 0);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::AR)], 15);
}

TEST(ImportPipelineTest, PeerWaitIsSplitFromTheTransfer) {
  std::vector<RawRankTrace> raws(2);
  for (int r = 0; r < 2; ++r) {
    raws[r].file = "worker" + std::to_string(r) + ".json";
    RawEvent e;
    e.source = EventSource::NcclKernel;
    e.comm = r == 0 ? CommOp::Send : CommOp::Recv;
    e.name = raws[r].intern(r == 0 ? "ncclDevKernel_Send" : "ncclDevKernel_Recv");
    e.peer = 1 - r;
    e.bytes = 4096;
    // The receiver posts at 10 µs, the sender only at 30 µs; both end at 40 µs.
    e.start_ns = r == 0 ? 30'000 : 10'000;
    e.end_ns = 40'000;
    raws[r].events.push_back(e);
  }
  ImportOptions options;
  options.align = AlignMode::P2p;
  auto run = assembleImport(std::move(raws), options);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->peerWaits, 1);
  ASSERT_EQ(run->ops.size(), 3U);
  // Rank 1 (receiver): the wait [0, 20 µs) then the transfer [20, 30 µs) on the common axis.
  std::vector<OpRecord> recv;
  for (const auto& op : run->ops)
    if (op.rank == 1) recv.push_back(op);
  ASSERT_EQ(recv.size(), 2U);
  EXPECT_EQ(recv[0].start_ns, 0);
  EXPECT_EQ(recv[0].end_ns, 20'000);
  EXPECT_EQ(*recv[0].name, "ncclDevKernel_Recv · waiting for rank 0");
  EXPECT_FALSE(recv[0].bytes);
  EXPECT_EQ(recv[1].start_ns, 20'000);
  EXPECT_EQ(recv[1].end_ns, 30'000);
  EXPECT_EQ(recv[1].bytes, 4096);
}

TEST(ImportPipelineTest, UnknownLabelsAndKernelsStayAsNamedOtherOps) {
  RawRankTrace raw;
  raw.file = "one.json";
  auto add = [&](EventSource s, const char* name, std::int64_t a, std::int64_t b) {
    RawEvent e;
    e.source = s;
    e.name = raw.intern(name);
    e.start_ns = a;
    e.end_ns = b;
    raw.events.push_back(e);
  };
  add(EventSource::GpuAnnotation, "PP:0F0", 100, 200);
  add(EventSource::Kernel, "gemm_inside_F", 110, 190);  // part of F0
  add(EventSource::Kernel, "gemm_outside", 300, 400);
  add(EventSource::CpuAnnotation, "## forward ##", 0, 500);
  add(EventSource::CpuAnnotation, "ProfilerStep#4", 0, 1000);
  ImportOptions options;
  auto run = assembleImport({raw}, options);
  ASSERT_TRUE(run.ok()) << run.error();
  ASSERT_EQ(run->ops.size(), 3U);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::F)], 1);
  EXPECT_EQ(run->stats.opsByKind[static_cast<int>(OpKind::OTHER)], 2);
  EXPECT_EQ(run->stats.unknownLabels.at("## forward ##"), 1);
  const std::string summary = formatImportSummary(*run);
  EXPECT_NE(summary.find("\"## forward ##\" x1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("F=1"), std::string::npos) << summary;
}

TEST(ImportPipelineTest, NothingToImportIsAClearError) {
  RawRankTrace raw;
  raw.file = "empty.json";
  auto run = assembleImport({raw}, ImportOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error(),
            "empty.json: nothing to import (no annotations, kernels, copies or memory events)");
}

TEST(ImportPipelineTest, FilesOfDifferentRunsAreRefused) {
  SyntheticGpipe g;
  g.ranks = 2;
  auto raws = syntheticRaw(g, {0, 0});
  raws[1].wallClockOffsetNs = *raws[1].wallClockOffsetNs + 5 * 3600LL * 1'000'000'000LL;
  auto run = assembleImport(std::move(raws), ImportOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("5.0 h apart"), std::string::npos) << run.error();

  auto sizes = syntheticRaw(g, {0, 0});
  sizes[1].worldSize = 8;
  run = assembleImport(std::move(sizes), ImportOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("files of different runs"), std::string::npos) << run.error();
}

}  // namespace
}  // namespace ps::trace::import
