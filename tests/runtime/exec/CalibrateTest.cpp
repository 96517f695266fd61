// Calibration on the cpu backend: every layer gets measured F/I/W times and the real model's
// sizes, and the simulator fed with those sizes predicts the executor's peak memory.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/cost/CostJson.h"
#include "runtime/exec/Calibrate.h"
#include "runtime/exec/CpuExecutor.h"
#include "runtime/model/StageModel.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/sim/Simulator.h"

namespace ps::runtime {
namespace {

ModelConfig model(int layers, int hidden = 16) {
  ModelConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.seq = 4;
  c.microbatchSize = 2;
  c.ffnMultiplier = 2;
  return c;
}

TEST(Calibrate, TimesEveryLayerAndTakesSizesFromTheModel) {
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  CalibrationOptions options;
  options.repeats = 3;
  options.warmup = 1;
  options.threads = 2;
  auto cost = calibrateCpuCosts(model(3), adam, options);
  ASSERT_TRUE(cost.ok()) << cost.error();
  ASSERT_EQ(cost->layers.size(), 3u);
  StageOptions one;
  one.firstLayer = one.lastLayer = 1;
  auto middle = StageModel::create(model(3), one);
  ASSERT_TRUE(middle.ok());
  for (const LayerCost& l : cost->layers) {
    EXPECT_GT(l.fwdNs, 0) << l.name;
    EXPECT_GT(l.inputGradNs, 0) << l.name;
    EXPECT_GT(l.weightGradNs, 0) << l.name;
    EXPECT_EQ(l.paramBytes, (*middle)->paramBytes()) << l.name;
  }
  EXPECT_EQ(cost->layers[0].name, "mlp.0");
  // What one micro-batch holds after F: the stash; the last layer also keeps the loss gradient.
  EXPECT_EQ(cost->layers[1].actBytes, (*middle)->activationBytesPerMicrobatch());
  StageOptions lastOne;
  lastOne.firstLayer = lastOne.lastLayer = 2;
  auto last = StageModel::create(model(3), lastOne);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(cost->layers[2].actBytes, (*last)->activationBytesPerMicrobatch());
  EXPECT_DOUBLE_EQ(cost->stateBytesPerParamByte, 4.0);  // weights, gradients, Adam's m and v
  EXPECT_GT(cost->optimizerNsPerParamByte, 0);

  // The cost file reads back as the same model.
  auto back = parseCostJson(writeCostJson(*cost, "test"), "calibrated.json");
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->layers.size(), 3u);
  EXPECT_NEAR(back->layers[2].fwdNs, cost->layers[2].fwdNs, 1.0);
  EXPECT_EQ(back->layers[2].actBytes, cost->layers[2].actBytes);

  OptimizerConfig sgd;
  auto sizes = cpuModelSizes(model(2), sgd);
  ASSERT_TRUE(sizes.ok());
  EXPECT_DOUBLE_EQ(sizes->stateBytesPerParamByte, 2.0);  // weights and gradients only
  EXPECT_EQ(sizes->layers[0].fwdNs, 0);
  EXPECT_FALSE(calibrateCpuCosts(model(2), sgd, {0, 0, 1}).ok());
}

TEST(Calibrate, SimulatedPeakMemoryIsCloseToTheCpuRun) {
  for (const char* schedule : {"1f1b", "gpipe", "zb-h1"}) {
    PlanSpec spec;
    spec.schedule = schedule;
    spec.stages = 2;
    spec.microbatches = 4;
    spec.layers = 4;
    auto built = buildPlan(spec);
    ASSERT_TRUE(built.ok()) << built.error();
    CpuRunOptions options;
    options.model = model(4, 64);
    options.optimizer.kind = OptimizerKind::Adam;
    auto sizes = cpuModelSizes(options.model, options.optimizer);
    ASSERT_TRUE(sizes.ok());
    auto sim = simulate(built->plan, built->graph, *sizes);
    ASSERT_TRUE(sim.ok()) << sim.error();
    auto run = runOnCpuThreads(built->plan, built->graph, options, nullptr);
    ASSERT_TRUE(run.ok()) << run.error();
    for (int r = 0; r < 2; ++r) {
      const double predicted = static_cast<double>(sim->peakMemory[r]);
      const double measured = static_cast<double>(run->peakMemory[r]);
      // The simulator holds weights, gradients, optimizer state and each in-flight micro-batch's
      // stash; the run also has one op's transient buffers (boundary tensors, scratch) on top.
      EXPECT_LE(predicted, measured) << schedule << " rank " << r;
      EXPECT_GE(predicted / measured, 0.75) << schedule << " rank " << r;
    }
  }
}

}  // namespace
}  // namespace ps::runtime
