#pragma once
// What the RunConfig tests share: the config_json runPlan writes for a request, and the requests
// they start from.

#include <gtest/gtest.h>

#include <string>

#include "runtime/run/ModelRun.h"
#include "runtime/run/RunConfig.h"
#include "tests/common/TestPaths.h"

namespace ps::runtime::test_config {

inline const std::string kCsv = test::sourcePath("tests/runtime/golden/schedule_1f1b_p4_m8.csv");

// The config_json runPlan writes for `r` (RunPlan.cpp: the plan's, or modelRunConfigJson of it).
inline std::string configOf(const RunPlanRequest& r) {
  auto built = buildPlan(r.spec);
  EXPECT_TRUE(built.ok()) << built.error();
  if (!built) return {};
  if (r.backend == Backend::Sim) return built->configJson;
  return modelRunConfigJson(built->configJson, r.backend, r.exec);
}

inline RunPlanRequest baseRequest() {
  RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = 4;
  r.spec.microbatches = 8;
  return r;
}

inline RunPlanRequest modelRequest(Backend backend) {
  RunPlanRequest r = baseRequest();
  r.backend = backend;
  return r;
}

}  // namespace ps::runtime::test_config
