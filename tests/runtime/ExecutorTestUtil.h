#pragma once
// What the executor tests (cpu against the unpipelined model, cuda against cpu) share: a weight
// comparison, a schedule case with a test-name generator, and a small model trained on a preset's
// plan (the papers' training claims).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/ReferenceTrainer.h"
#include "runtime/run/BackendRefusals.h"
#include "runtime/run/PlanBuilder.h"
#include "tests/common/TestUtil.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"

namespace ps::test {

// The largest |a − b| / max(|b|, 1e-3) over the two weight vectors (same length).
inline double maxRelError(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double scale = std::max(1e-3, std::fabs(static_cast<double>(b[i])));
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]) / scale);
  }
  return worst;
}

struct ScheduleCase {
  std::string schedule;
  int p, m, v;
  int dp = 1;  // --dp: data-parallel replicas of the pipeline (m is every replica's together)
};

// A gtest parameter name: the schedule with '-' made '_'.
struct ScheduleCaseName {
  template <class Info>
  std::string operator()(const Info& info) const {
    std::string n = info.param.schedule;
    std::replace(n.begin(), n.end(), '-', '_');
    if (info.param.dp > 1) n += "_dp" + std::to_string(info.param.dp);
    return n;
  }
};

// `spec` built and trained on cpu threads with a small model of `block` (hidden 16, 4 tokens of
// 4 sequences a micro-batch, FFN ×`ffnMultiplier`) under Adam at lr 0.01: its per-step losses,
// empty (the failure reported) when the plan or the run fails.
inline std::vector<double> smallModelLosses(const runtime::PlanSpec& spec, runtime::BlockType block,
                                            int ffnMultiplier = 4) {
  auto built = runtime::buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  runtime::CpuRunOptions options;
  options.model.block = block;
  options.model.hidden = 16;
  options.model.seq = 4;
  options.model.microbatchSize = 4;
  options.model.ffnMultiplier = ffnMultiplier;
  options.optimizer.kind = runtime::OptimizerKind::Adam;
  options.optimizer.lr = 0.01f;
  auto run = runtime::runOnCpuThreads(built->plan, built->graph, options, nullptr);
  EXPECT_TRUE(run.ok()) << run.error();
  if (!run.ok()) return {};
  return {run->stepLoss.begin(), run->stepLoss.end()};
}

// `built` trained on cpu threads with `options` (the plan's model features checked first) next to
// the unpipelined model of the same config over the plan's micro-batches and steps, every step's
// loss expected within 1e-5 of it. False (the failure reported) when either run fails.
inline bool trainAgainstReference(const runtime::BuiltPlan& built,
                                  const runtime::CpuRunOptions& options, runtime::CpuRunResult& run,
                                  runtime::ReferenceRun& ref) {
  runtime::ModelConfig whole = options.model;
  whole.layers = built.plan.numLayers;
  whole.historyRefresh = built.plan.historyRefresh;
  whole.clusterKeys = built.plan.clusterKeys ? built.plan.numMicrobatches() : 0;
  const ps::Status features = runtime::checkModelFeatures(built.plan, whole);
  EXPECT_TRUE(features.ok()) << features.error();
  auto trained = runtime::runOnCpuThreads(built.plan, built.graph, options, nullptr);
  EXPECT_TRUE(trained.ok()) << trained.error();
  auto reference = runtime::referenceTrain(whole, built.plan.numMicrobatches(), built.plan.steps,
                                           options.optimizer);
  EXPECT_TRUE(reference.ok()) << reference.error();
  if (!features.ok() || !trained.ok() || !reference.ok()) return false;
  run = std::move(*trained);
  ref = std::move(*reference);
  EXPECT_EQ(run.status, trace::RunStatus::Complete) << run.message;
  EXPECT_EQ(run.stepLoss.size(), ref.losses.size());
  for (std::size_t k = 0; k < run.stepLoss.size() && k < ref.losses.size(); ++k)
    EXPECT_NEAR(run.stepLoss[k], ref.losses[k], 1e-5 * std::fabs(ref.losses[k])) << "step " << k;
  return run.stepLoss.size() == ref.losses.size() && !run.stepLoss.empty();
}

// The executor tests' small model (hidden 8, 4 tokens of 2 sequences a micro-batch, FFN ×2) of
// `block`, its weights and data from `seed`, under Adam at lr 0.01.
inline runtime::CpuRunOptions smallAdamRun(runtime::BlockType block = runtime::BlockType::Mlp,
                                           std::uint64_t seed = 7) {
  runtime::CpuRunOptions options;
  options.model.block = block;
  options.model.hidden = 8;
  options.model.seq = 4;
  options.model.microbatchSize = 2;
  options.model.ffnMultiplier = 2;
  options.model.seed = seed;
  options.optimizer.kind = runtime::OptimizerKind::Adam;
  options.optimizer.lr = 0.01f;
  return options;
}

// A run recorded into a fresh trace file in `dir` and loaded back: `train(writer)` runs it (on any
// backend) and returns its result. nullopt, the failure reported, when any part fails.
template <typename Train>
std::optional<trace::RunTrace> recordedRun(const TempDir& dir, const std::string& source, int ranks,
                                           Train&& train) {
  auto store =
      trace::TraceStore::open(dir.file(source + ".sqlite"), trace::TraceStore::Mode::ReadWrite);
  EXPECT_TRUE(store.ok()) << store.error();
  if (!store.ok()) return std::nullopt;
  trace::RunHeader header;
  header.info.name = source + " test";
  header.info.source = source;
  header.info.num_ranks = ranks;
  auto writer = trace::TraceWriter::begin(*store, header);
  EXPECT_TRUE(writer.ok()) << writer.error();
  if (!writer.ok()) return std::nullopt;
  auto run = train(&*writer);
  EXPECT_TRUE(run.ok()) << run.error();
  if (!run.ok()) return std::nullopt;
  EXPECT_EQ(run->status, trace::RunStatus::Complete) << run->message;
  EXPECT_TRUE(writer->finish(run->status).ok());
  auto loaded = trace::loadRun(*store, writer->runId());
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  if (!loaded.ok()) return std::nullopt;
  return std::move(*loaded);
}

// PipeDream over `stages` ranks, 4 micro-batches, 6 steps, with `versions` for its weights
// (--weight-versions), 64 MiB of weights a layer for the simulator's memory.
inline runtime::PlanSpec asyncPipedream(int stages, const std::string& versions) {
  runtime::PlanSpec spec;
  spec.schedule = "pipedream";
  spec.stages = stages;
  spec.microbatches = 4;
  spec.steps = 6;
  spec.weightVersions = versions;
  spec.uniform.paramMb = 64;
  return spec;
}

// `spec` trained on cpu threads with a tiny MLP (hidden 8, 8 tokens a micro-batch) under SGD at
// lr 0.2, `options` as `tweak` leaves them: its step losses (empty, the failure reported, on
// error).
template <typename Tweak>
std::vector<double> tinySgdLosses(const runtime::PlanSpec& spec, Tweak&& tweak) {
  auto built = runtime::buildPlan(spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built.ok()) return {};
  runtime::CpuRunOptions options = smallAdamRun(runtime::BlockType::Mlp, 42);
  options.optimizer.kind = runtime::OptimizerKind::Sgd;
  options.optimizer.lr = 0.2f;
  tweak(options);
  auto run = runtime::runOnCpuThreads(built->plan, built->graph, options, nullptr);
  EXPECT_TRUE(run.ok()) << run.error();
  if (!run.ok()) return {};
  return {run->stepLoss.begin(), run->stepLoss.end()};
}

}  // namespace ps::test
