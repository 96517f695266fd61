// requestFromConfigJson is the inverse of what runPlan writes into config_json: for every knob, a
// request with that knob changed gives a config that parses back to a request with the knob set
// and regenerates byte for byte (runs read from a file: RunConfigFileTest.cpp; imported runs and
// bad text: RunConfigBadInputTest.cpp).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kernels/ComputeDevice.h"
#include "runtime/cost/CostJson.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/Presets.h"
#include "runtime/run/RunConfig.h"
#include "runtime/schedules/Schedule.h"
#include "tests/common/TestUtil.h"
#include "tests/runtime/RunConfigTestUtil.h"
#include "trace/store/TraceStore.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;
using namespace test_config;

struct KnobCase {
  std::string name;
  std::function<void(RunPlanRequest&)> set;
  std::function<void(const RunPlanRequest&)> check;  // the parsed request has the knob set
  Backend backend = Backend::Sim;
};

std::string caseName(const ::testing::TestParamInfo<KnobCase>& info) {
  return info.param.name;
}

// A cost file (two layers, a slow link, rank 1 at half speed) next to the test's temp dir.
std::string writeCostFile(const std::string& path) {
  test::writeFile(path, R"({"format":"pipescope-costs","version":1,"layers":[)"
                        R"({"name":"a","fwd_us":123.456,"bwd_us":250,"act_bytes":1000,)"
                        R"("param_bytes":2000},{"name":"b","repeat":3,"fwd_us":77.7,"igrad_us":80,)"
                        R"("wgrad_us":60.25,"act_bytes":3000}],"ranks":[{"speed":1},{"speed":0.5,)"
                        R"("memory_gb":1}],"link":{"gbps":25,"latency_us":3.5},"links":[{"src":0,)"
                        R"("dst":1,"gbps":5}],"optimizer_ns_per_param_byte":0.02})");
  return path;
}

std::vector<KnobCase> knobCases() {
  std::vector<KnobCase> c;
  auto sim = [&c](std::string name, std::function<void(RunPlanRequest&)> set,
                  std::function<void(const RunPlanRequest&)> check) {
    c.push_back({std::move(name), std::move(set), std::move(check), Backend::Sim});
  };
  auto model = [&c](std::string name, Backend backend, std::function<void(RunPlanRequest&)> set,
                    std::function<void(const RunPlanRequest&)> check) {
    c.push_back({std::move(name), std::move(set), std::move(check), backend});
  };
  sim(
      "defaults", [](RunPlanRequest&) {},
      [](const RunPlanRequest& p) {
        EXPECT_EQ(p.backend, Backend::Sim);
        EXPECT_FALSE(p.spec.uniform.linkGbps.has_value());  // free links
        EXPECT_EQ(p.spec.costs, nullptr);                   // uniform costs come from the flags
      });
  sim(
      "schedule", [](RunPlanRequest& r) { r.spec.schedule = "gpipe"; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.schedule, "gpipe"); });
  sim(
      "schedule_file",
      [](RunPlanRequest& r) {
        r.spec.scheduleFile = kCsv;
        r.spec.stages.reset();
        r.spec.microbatches.reset();
      },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.scheduleFile, kCsv); });
  sim(
      "stages", [](RunPlanRequest& r) { r.spec.stages = 3; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.stages, 3); });
  sim(
      "microbatches", [](RunPlanRequest& r) { r.spec.microbatches = 5; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.microbatches, 5); });
  sim(
      "chunks",
      [](RunPlanRequest& r) {
        r.spec.schedule = "interleaved-1f1b";
        r.spec.chunks = 2;
      },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.chunks, 2); });
  sim(
      "layers", [](RunPlanRequest& r) { r.spec.layers = 16; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.layers, 16); });
  sim(
      "boundaries",
      [](RunPlanRequest& r) {
        r.spec.layers = 10;
        r.spec.boundaries = "1,5,8";
      },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.boundaries, "1,5,8"); });
  sim(
      "steps", [](RunPlanRequest& r) { r.spec.steps = 3; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.steps, 3); });
  sim(
      "optimizer_sync",
      [](RunPlanRequest& r) {
        r.spec.steps = 2;
        r.spec.optimizerSync = OptimizerSync::None;
      },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.optimizerSync, OptimizerSync::None); });
  sim(
      "recompute", [](RunPlanRequest& r) { r.spec.recompute = true; },
      [](const RunPlanRequest& p) { EXPECT_TRUE(p.spec.recompute); });
  sim(
      "fwd_us", [](RunPlanRequest& r) { r.spec.uniform.fwdUs = 55.5; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.fwdUs, 55.5); });
  sim(
      "bwd_us", [](RunPlanRequest& r) { r.spec.uniform.bwdUs = 333.25; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.bwdUs, 333.25); });
  sim(
      "wgrad_us", [](RunPlanRequest& r) { r.spec.uniform.wgradUs = 42.125; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.wgradUs, 42.125); });
  sim(
      "act_mb", [](RunPlanRequest& r) { r.spec.uniform.actMb = 1.7; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.actMb, 1.7); });
  sim(
      "param_mb", [](RunPlanRequest& r) { r.spec.uniform.paramMb = 0.3; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.paramMb, 0.3); });
  sim(
      "link_gbps", [](RunPlanRequest& r) { r.spec.uniform.linkGbps = 10; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.linkGbps, 10.0); });
  sim(
      "link_latency_us", [](RunPlanRequest& r) { r.spec.uniform.linkLatencyUs = 4.2; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.spec.uniform.linkLatencyUs, 4.2); });
  sim(
      "costs_file",
      [](RunPlanRequest& r) {
        r.spec.costsFile = writeCostFile(
            (std::filesystem::temp_directory_path() / "ps_runconfig_costs.json").string());
      },
      [](const RunPlanRequest& p) {
        EXPECT_THAT(p.spec.costsFile, HasSubstr("ps_runconfig_costs.json"));
        ASSERT_NE(p.spec.costs, nullptr);  // the embedded copy, not the file
        EXPECT_EQ(p.spec.costs->layers.size(), 4u);
        EXPECT_EQ(p.spec.costs->link(0, 1).bytesPerNs, 5.0 / 8.0);
        EXPECT_EQ(p.spec.costs->speedOf(1), 0.5);
      });

  model(
      "backend_cpu", Backend::Cpu, [](RunPlanRequest&) {},
      [](const RunPlanRequest& p) { EXPECT_EQ(p.backend, Backend::Cpu); });
  model(
      "backend_cuda", Backend::Cuda, [](RunPlanRequest&) {},
      [](const RunPlanRequest& p) { EXPECT_EQ(p.backend, Backend::Cuda); });
  model(
      "model_block", Backend::Cpu,
      [](RunPlanRequest& r) { r.exec.model.block = BlockType::Transformer; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.block, BlockType::Transformer); });
  model(
      "hidden", Backend::Cpu, [](RunPlanRequest& r) { r.exec.model.hidden = 128; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.hidden, 128); });
  model(
      "seq", Backend::Cpu, [](RunPlanRequest& r) { r.exec.model.seq = 32; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.seq, 32); });
  model(
      "mb_size", Backend::Cpu, [](RunPlanRequest& r) { r.exec.model.microbatchSize = 5; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.microbatchSize, 5); });
  model(
      "heads", Backend::Cpu, [](RunPlanRequest& r) { r.exec.model.heads = 8; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.heads, 8); });
  model(
      "ffn_multiplier", Backend::Cpu, [](RunPlanRequest& r) { r.exec.model.ffnMultiplier = 2; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.ffnMultiplier, 2); });
  model(
      "seed", Backend::Cpu, [](RunPlanRequest& r) { r.exec.model.seed = 0xfedcba9876543210ull; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.model.seed, 0xfedcba9876543210ull); });
  model(
      "optimizer", Backend::Cpu,
      [](RunPlanRequest& r) { r.exec.optimizer.kind = OptimizerKind::Adam; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.optimizer.kind, OptimizerKind::Adam); });
  model(
      "lr", Backend::Cpu, [](RunPlanRequest& r) { r.exec.optimizer.lr = 0.001f; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.optimizer.lr, 0.001f); });
  model(
      "momentum", Backend::Cpu, [](RunPlanRequest& r) { r.exec.optimizer.momentum = 0.9f; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.optimizer.momentum, 0.9f); });
  model(
      "beta1", Backend::Cpu, [](RunPlanRequest& r) { r.exec.optimizer.beta1 = 0.8f; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.optimizer.beta1, 0.8f); });
  model(
      "beta2", Backend::Cpu, [](RunPlanRequest& r) { r.exec.optimizer.beta2 = 0.95f; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.optimizer.beta2, 0.95f); });
  model(
      "eps", Backend::Cpu, [](RunPlanRequest& r) { r.exec.optimizer.eps = 1e-6f; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.optimizer.eps, 1e-6f); });
  model(
      "dtype", Backend::Cuda, [](RunPlanRequest& r) { r.exec.dtype = kernels::DType::Bf16; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.dtype, kernels::DType::Bf16); });
  model(
      "sm_split", Backend::Cuda, [](RunPlanRequest& r) { r.exec.smSplit = true; },
      [](const RunPlanRequest& p) { EXPECT_TRUE(p.exec.smSplit); });
  model(
      "event_timing", Backend::Cuda, [](RunPlanRequest& r) { r.exec.eventTiming = false; },
      [](const RunPlanRequest& p) { EXPECT_FALSE(p.exec.eventTiming); });
  model(
      "emulated_link_gbps", Backend::Cpu, [](RunPlanRequest& r) { r.exec.linkGbps = 2.5; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.linkGbps, 2.5); });
  model(
      "emulated_link_latency_us", Backend::Cpu,
      [](RunPlanRequest& r) { r.exec.linkLatencyUs = 7.5; },
      [](const RunPlanRequest& p) { EXPECT_EQ(p.exec.linkLatencyUs, 7.5); });
  model(
      "model_plan_link", Backend::Cpu,
      [](RunPlanRequest& r) {
        r.spec.uniform.linkGbps = 10;
        r.spec.layers = 8;
        r.spec.boundaries = "2,4,6";
      },
      [](const RunPlanRequest& p) {
        EXPECT_EQ(p.spec.uniform.linkGbps, 10.0);
        EXPECT_EQ(p.spec.boundaries, "2,4,6");
        EXPECT_FALSE(p.exec.linkGbps.has_value());  // the emulated link was not set
      });
  return c;
}

class RunConfigKnob : public ::testing::TestWithParam<KnobCase> {};

TEST_P(RunConfigKnob, RoundTripsByteForByteWithTheKnobSet) {
  const KnobCase& k = GetParam();
  RunPlanRequest r = k.backend == Backend::Sim ? baseRequest() : modelRequest(k.backend);
  k.set(r);
  const std::string config = configOf(r);
  ASSERT_FALSE(config.empty());
  auto parsed = requestFromConfigJson(config);
  ASSERT_TRUE(parsed.ok()) << parsed.error() << "\n" << config;
  EXPECT_EQ(parsed->backend, k.backend);
  k.check(*parsed);
  EXPECT_EQ(configOf(*parsed), config);
  // Nothing the caller names: runPlan's defaults.
  EXPECT_TRUE(parsed->name.empty());
  EXPECT_TRUE(parsed->configJson.empty());
}

INSTANTIATE_TEST_SUITE_P(EveryKnob, RunConfigKnob, ::testing::ValuesIn(knobCases()), caseName);

// Every generator's placement (replicas, V shapes, bidirectional pairs) reads back from the
// boundary list it wrote.
TEST(RunConfig, EveryScheduleRoundTrips) {
  for (const auto& info : scheduleRegistry()) {
    SCOPED_TRACE(info.name);
    RunPlanRequest r = baseRequest();
    r.spec.schedule = info.name;
    r.spec.layers = 16;
    r.spec.steps = 2;
    if (!buildPlan(r.spec)) r.spec.chunks = 2;  // the interleaved and V schedules
    auto built = buildPlan(r.spec);
    ASSERT_TRUE(built.ok()) << built.error();
    auto parsed = requestFromConfigJson(built->configJson);
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    EXPECT_EQ(configOf(*parsed), built->configJson);
  }
}

// The papers' systems' plan features (token slices, grouped sequences, stage graphs, weight
// versions, frozen work, communication-lane work, moved activations) are written into the config
// and read back into the same plan: the plan JSON is their lossless text form.
TEST(RunConfig, EveryPresetRoundTripsToTheSamePlan) {
  for (const Preset& preset : builtinPresets().presets) {
    SCOPED_TRACE(preset.name);
    auto built = buildPlan(preset.spec);
    ASSERT_TRUE(built.ok()) << built.error();
    auto parsed = requestFromConfigJson(built->configJson);
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    auto again = buildPlan(parsed->spec);
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_EQ(again->configJson, built->configJson);
    const Plan &a = built->plan, &b = again->plan;
    EXPECT_EQ(a.programs, b.programs);
    EXPECT_EQ(a.stagePreds, b.stagePreds);
    EXPECT_EQ(a.extraEdges.size(), b.extraEdges.size());
    EXPECT_EQ(a.activationMoves, b.activationMoves);
    EXPECT_EQ(a.versioning, b.versioning);
    EXPECT_EQ(a.expertAllToAll, b.expertAllToAll);
    EXPECT_EQ(a.embeddingFetch, b.embeddingFetch);
    ASSERT_EQ(a.numMicrobatches(), b.numMicrobatches());
    for (int m = 0; m < a.numMicrobatches(); ++m) {
      EXPECT_EQ(a.microbatches[m].costScale, b.microbatches[m].costScale) << m;
      EXPECT_EQ(a.microbatches[m].sliceOf, b.microbatches[m].sliceOf) << m;
    }
  }
}

TEST(RunConfig, ACostFileRunRerunsAfterTheFileIsGone) {
  test::TempDir dir;
  RunPlanRequest r = baseRequest();
  r.spec.costsFile = writeCostFile(dir.file("costs.json"));
  const std::string config = configOf(r);
  std::filesystem::remove(r.spec.costsFile);
  auto parsed = requestFromConfigJson(config);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(configOf(*parsed), config);
}

TEST(RunConfig, ATorchCsvWhoseFileIsGoneFailsOnlyWhenBuilt) {
  test::TempDir dir;
  const std::string csv = dir.file("sched.csv");
  std::filesystem::copy_file(kCsv, csv);
  RunPlanRequest r;
  r.spec.scheduleFile = csv;
  r.source = "torch-csv";
  const std::string config = configOf(r);
  std::filesystem::remove(csv);
  auto parsed = requestFromConfigJson(config);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->backend, Backend::Sim);
  EXPECT_EQ(parsed->spec.scheduleFile, csv);
  auto built = buildPlan(parsed->spec);
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.error(), HasSubstr("sched.csv"));
}

TEST(RunConfig, AnOlderModelConfigEmulatesThePlansLink) {
  // Written before the emulated link was recorded: the CLI emulated the plan's --link-gbps.
  auto parsed = requestFromConfigJson(
      R"({"plan":{"schedule":"1f1b","stages":2,"link_gbps":10,"link_latency_us":3},)"
      R"("backend":"cpu","model":"mlp","hidden":8,"seq":4,"mb_size":2,"heads":2,"seed":1,)"
      R"("optimizer":"adam","lr":0.001,"dtype":"fp32","sm_split":false})");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->exec.linkGbps, 10.0);
  EXPECT_EQ(parsed->exec.linkLatencyUs, 3.0);
  EXPECT_EQ(parsed->exec.optimizer.kind, OptimizerKind::Adam);
}

TEST(RunConfig, APredictionRerunsWithItsCalibratedCosts) {
  RunPlanRequest r = baseRequest();
  auto built = buildPlan(r.spec);
  ASSERT_TRUE(built.ok());
  CostModel calibrated = built->cost;
  calibrated.layers[0].fwdNs = 9999;
  const std::string config = R"({"schedule":"1f1b","chunks":1,"predicts_run":3,"plan":)" +
                             built->configJson + R"(,"calibrated_costs":)" +
                             writeCostJson(calibrated) + "}";
  auto parsed = requestFromConfigJson(config);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->backend, Backend::Sim);
  ASSERT_NE(parsed->spec.costs, nullptr);
  EXPECT_DOUBLE_EQ(parsed->spec.costs->layers[0].fwdNs, 9999);
  // Its rerun's config keeps the costs as given, and reads back to them.
  const std::string rerun = configOf(*parsed);
  auto again = requestFromConfigJson(rerun);
  ASSERT_TRUE(again.ok()) << again.error();
  ASSERT_NE(again->spec.costs, nullptr);
  EXPECT_DOUBLE_EQ(again->spec.costs->layers[0].fwdNs, 9999);
  EXPECT_EQ(configOf(*again), rerun);
}

}  // namespace
}  // namespace ps::runtime
