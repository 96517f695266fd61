#pragma once
// Plan requests the plan panel tests show and compare (tests/ui/PlanPanel*Test.cpp).

#include <gtest/gtest.h>

#include <string>

#include "runtime/run/ModelRun.h"
#include "runtime/run/PlanBuilder.h"
#include "runtime/run/RunPlan.h"

namespace ps::ui::test_requests {

// What a request reruns, as text: the plan's config_json, and for cpu/cuda the model run's.
inline std::string configOf(const runtime::RunPlanRequest& r) {
  auto built = runtime::buildPlan(r.spec);
  EXPECT_TRUE(built) << built.error();
  if (!built) return {};
  if (!runtime::trainsModel(r.backend)) return built->configJson;
  return runtime::modelRunConfigJson(built->configJson, r.backend, r.exec);
}

// Every plan and cost knob away from its default, values the spin boxes cannot show exactly.
inline runtime::RunPlanRequest oddSimRequest() {
  runtime::RunPlanRequest r;
  r.spec.schedule = "interleaved-1f1b";
  r.spec.stages = 4;
  r.spec.microbatches = 8;
  r.spec.chunks = 2;
  r.spec.layers = 16;
  r.spec.boundaries = "1,3,5,7,9,11,13";
  r.spec.steps = 3;
  r.spec.optimizerSync = runtime::OptimizerSync::None;
  r.spec.recompute = true;
  r.spec.uniform.fwdUs = 123.4567;
  r.spec.uniform.bwdUs = 234.56789;
  r.spec.uniform.wgradUs = 45.55555;
  r.spec.uniform.actMb = 2.3456789;
  r.spec.uniform.paramMb = 0.75;  // not on screen: kept
  r.spec.uniform.linkGbps = 12.3456;
  r.spec.uniform.linkLatencyUs = 7.123;
  r.spec.rankSpeed = {1, 0.7, 2.5, 1.3};
  r.spec.rankMemoryGb = {80, 40.5, 40, 80};
  return r;
}

// The placement knobs (DAPPLE's replicas, Luo et al.'s nodes and mapping) away from defaults.
inline runtime::RunPlanRequest oddPlacementRequest() {
  runtime::RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = 2;
  r.spec.microbatches = 6;
  r.spec.dataParallel = 3;
  r.spec.uniform.linkGbps = 40;
  r.spec.uniform.paramMb = 1;
  r.spec.topology = "3x2";
  r.spec.interGbps = 12.3456;
  r.spec.interLatencyUs = 3.21;
  r.spec.mapping = "1,0,3,2,5,4";
  r.spec.layers = 6;
  r.spec.partition = "memory";
  r.spec.timeSlack = 0.123;
  return r;
}

inline runtime::RunPlanRequest oddCpuRequest() {
  runtime::RunPlanRequest r;
  r.backend = runtime::Backend::Cpu;
  r.spec.schedule = "gpipe";
  r.spec.stages = 2;
  r.spec.microbatches = 3;
  r.spec.layers = 6;
  r.spec.uniform.linkGbps = 5.5;
  r.exec.model.block = runtime::BlockType::Mlp;
  r.exec.model.hidden = 24;
  r.exec.model.heads = 3;
  r.exec.model.seq = 5;
  r.exec.model.microbatchSize = 3;
  r.exec.model.seed = 1234567;
  r.exec.optimizer.kind = runtime::OptimizerKind::Sgd;
  r.exec.optimizer.lr = 0.0123f;
  r.exec.optimizer.momentum = 0.5f;
  r.exec.linkGbps = 5.5;
  r.exec.linkLatencyUs = 3.25;
  return r;
}

}  // namespace ps::ui::test_requests
