// SpikePipe's claim (Sanjeet et al., arXiv:2406.06879) on a spiking network that really trains:
// pipelined backprop with delayed gradients (the spikepipe preset: PipeDream's timeline, an update
// per micro-batch, no stash) against synchronous pipelining (1F1B, one update per 4 micro-batches)
// after the same 32 samples on the cpu backend's spiking block (LIF neurons, surrogate gradient):
// a loss at least as low, and more micro-batches a second in the simulator under the same costs.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numeric>

#include "runtime/run/PlanBuilder.h"
#include "tests/runtime/ExecutorTestUtil.h"
#include "tests/runtime/ScheduleTestUtil.h"
#include "trace/analysis/RunAnalysis.h"

namespace ps::runtime {
namespace {

constexpr int kSamples = 32;

PlanSpec delayedGradients() {
  PlanSpec spec = test::presetSpec("spikepipe");
  spec.stages = 2;
  spec.steps = kSamples;  // one micro-batch a step
  spec.layers = 4;
  return spec;
}

PlanSpec synchronous() {
  PlanSpec spec = delayedGradients();
  spec.schedule = "1f1b";
  spec.weightVersions.clear();
  spec.microbatches = 4;
  spec.steps = kSamples / 4;
  return spec;
}

// The mean loss over the last `samples` micro-batches of a run.
double lastLoss(const PlanSpec& spec, int samples) {
  const std::vector<double> losses = test::smallModelLosses(spec, BlockType::Spiking, 2);
  if (losses.empty()) return NAN;
  EXPECT_LT(losses.back(), losses.front()) << spec.schedule << " learns";
  // Each step's loss is the mean over its micro-batches: the last `samples` of them.
  const int perStep = spec.microbatches.value_or(1);
  const auto lastSteps = static_cast<std::ptrdiff_t>(samples / perStep);
  return std::accumulate(losses.end() - lastSteps, losses.end(), 0.0) /
         static_cast<double>(lastSteps);
}

double microbatchesPerSecond(const PlanSpec& spec) {
  const auto a = trace::analyzeRun(test::simulateThroughTraceFile(spec));
  // Overlapping steps (delayed gradients) begin a step every cadence; synchronous ones follow
  // each other.
  const auto every = spec.microbatches.value_or(1) == 1 ? a.step_cadence_ns : a.step_time_ns;
  EXPECT_TRUE(every.has_value()) << spec.schedule;
  return spec.microbatches.value_or(1) * 1e9 / static_cast<double>(every.value_or(1));
}

TEST(SpikePipe, DelayedGradientsTrainASpikingNetworkFasterAtNoWorseLoss) {
  const double delayed = lastLoss(delayedGradients(), 4), sync = lastLoss(synchronous(), 4);
  const double fast = microbatchesPerSecond(delayedGradients()),
               slow = microbatchesPerSecond(synchronous());
  std::cout << "after " << kSamples << " samples: delayed gradients loss " << delayed
            << ", synchronous " << sync << "; throughput " << fast << " vs " << slow
            << " micro-batches/s\n";
  EXPECT_LE(delayed, sync) << "eight times the updates, each a step late";
  EXPECT_GT(fast, slow);
}

}  // namespace
}  // namespace ps::runtime
