// The backends' registry (runtime/run/Backends.h, issue 33 §2): every row names itself, is found
// by its name and id, and says what it can run; the refusals read the rows' limits, so a backend
// is one row plus its executor.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/run/BackendRefusals.h"
#include "runtime/run/Backends.h"
#include "runtime/run/ModelRun.h"
#include "runtime/run/RunConfig.h"

namespace ps::runtime {
namespace {

using ::testing::HasSubstr;

TEST(BackendRegistry, EveryRowRoundTripsByNameAndId) {
  ASSERT_GE(backends().size(), 3u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < backends().size(); ++i) {
    const BackendInfo& row = backends()[i];
    EXPECT_EQ(static_cast<std::size_t>(row.id), i) << row.name;
    EXPECT_EQ(findBackend(row.name), &row);
    EXPECT_EQ(&backendInfo(row.id), &row);
    EXPECT_EQ(backendName(row.id), row.name);
    EXPECT_EQ(parseBackend(row.name), row.id);
    EXPECT_EQ(trainsModel(row.id), row.trainsModel);
    EXPECT_FALSE(row.summary.empty()) << row.name;
    EXPECT_TRUE(names.insert(std::string(row.name)).second) << "two rows named " << row.name;
    // A model backend has its executor; the simulator has none (runPlan simulates).
    EXPECT_EQ(row.execute != nullptr, row.trainsModel) << row.name;
    // ... and times the model's layers for --compare-sim and --calibrate-out.
    EXPECT_EQ(row.calibrate != nullptr, row.trainsModel) << row.name;
    EXPECT_EQ(row.calibrationPlace != nullptr, row.trainsModel) << row.name;
  }
  EXPECT_EQ(findBackend("tpu"), nullptr);
  // The three the callers and tests name by id, at their ids.
  EXPECT_EQ(backendName(Backend::Sim), "sim");
  EXPECT_EQ(backendName(Backend::Cpu), "cpu");
  EXPECT_EQ(backendName(Backend::Cuda), "cuda");
  const BackendCalibrationPlace cpu = backendInfo(Backend::Cpu).calibrationPlace(1, {});
  EXPECT_EQ(cpu.where, "cpu");
  EXPECT_EQ(cpu.how, "1 thread");
}

TEST(BackendRegistry, AnAvailableRowHasNoReasonAndAnUnavailableOneSaysWhy) {
  for (const BackendInfo& row : backends()) {
    const BackendAvailability a = row.available();
    if (a.ok) {
      EXPECT_TRUE(a.reason.empty()) << row.name;
    } else {
      EXPECT_FALSE(a.reason.empty()) << row.name;
      EXPECT_THAT(a.message, HasSubstr(a.reason)) << row.name;
    }
  }
  EXPECT_TRUE(backendInfo(Backend::Sim).available().ok);
  EXPECT_TRUE(backendInfo(Backend::Cpu).available().ok);
}

// The refusals come from the row's limits, in the row's name: what cuda refuses and cpu runs.
TEST(BackendRegistry, TheRefusalsFollowTheRowsLimits) {
  Plan plan;
  plan.numRanks = 2;
  plan.activationMoves.push_back({});
  for (const BackendInfo& row : backends()) {
    if (!row.trainsModel) continue;
    const Status ok = checkPlanFeatures(row.id, false, plan, nullptr);
    EXPECT_EQ(ok.ok(), row.limits.sharedMemoryRanks) << row.name;
    if (!ok) {
      EXPECT_THAT(ok.error(), HasSubstr("the " + std::string(row.name) + " backend"));
    }
    CpuRunOptions options;
    options.smSplit = true;
    EXPECT_EQ(checkModelOptions(row.id, options).ok(), row.limits.smSplit) << row.name;
  }
}

// config_json's "backend" key is the row's name, and reads back to the same row.
TEST(BackendRegistry, ConfigJsonNamesTheRowAndReadsItBack) {
  auto built = buildPlan(PlanSpec{});
  ASSERT_TRUE(built.ok()) << built.error();
  for (const BackendInfo& row : backends()) {
    if (!row.trainsModel) continue;
    CpuRunOptions options;
    const std::string json = modelRunConfigJson(built->configJson, row.id, options);
    EXPECT_THAT(json, HasSubstr("\"backend\":\"" + std::string(row.name) + "\"")) << json;
    auto request = requestFromConfigJson(json);
    ASSERT_TRUE(request.ok()) << request.error();
    EXPECT_EQ(request->backend, row.id);
  }
}

}  // namespace
}  // namespace ps::runtime
