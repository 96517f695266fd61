// The plan panel names a plan feature the cuda backend never runs before it says there is no
// device (issue 32 §9): in the check of a cuda request and in the Backend list's cuda entry.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <QComboBox>
#include <QStandardItemModel>

#include "runtime/cuda/CudaBackend.h"
#include "ui/PlanPanel.h"
#include "ui/PlanPanelCheck.h"

namespace ps::ui {
namespace {

using ::testing::StartsWith;

runtime::RunPlanRequest frozenPlan(runtime::Backend backend) {
  runtime::RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = 2;
  r.spec.microbatches = 2;
  r.spec.frozenUs = 5;
  r.backend = backend;
  r.exec.model.hidden = 8;
  r.exec.model.seq = 4;
  r.exec.model.microbatchSize = 2;
  r.exec.model.heads = 2;
  return r;
}

TEST(CudaEntryRefusal, ACudaRequestNamesTheFeatureBeforeTheMissingDevice) {
  std::string refusal;
  auto problem =
      checkRequest(frozenPlan(runtime::Backend::Cuda), "no CUDA device (test)", &refusal);
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(problem->message, StartsWith("--frozen-us: the cuda backend"));
  EXPECT_EQ(problem->knob, Knob::Frozen);
  EXPECT_EQ(refusal, problem->message);
  // Without the feature, the device is the reason.
  auto plain = frozenPlan(runtime::Backend::Cuda);
  plain.spec.frozenUs = 0;
  problem = checkRequest(plain, "no CUDA device (test)", &refusal);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->message, "no CUDA device (test)");
  EXPECT_EQ(problem->knob, Knob::Backend);
  EXPECT_EQ(refusal, "");
  // The cpu backend runs the frozen encoder on rank threads; cuda's refusal is still reported.
  EXPECT_FALSE(checkRequest(frozenPlan(runtime::Backend::Cpu), "no CUDA device (test)", &refusal)
                   .has_value());
  EXPECT_THAT(refusal, StartsWith("--frozen-us: the cuda backend"));
}

TEST(CudaEntryRefusal, TheBackendListsCudaEntrySaysWhyForThePlanOnScreen) {
  PlanPanel panel;
  auto* backend = panel.findChild<QComboBox*>("backendCombo");
  ASSERT_NE(backend, nullptr);
  auto* items = qobject_cast<QStandardItemModel*>(backend->model());
  ASSERT_NE(items, nullptr);
  panel.showRequest(frozenPlan(runtime::Backend::Sim));
  EXPECT_EQ(items->item(2)->text().toStdString(), "cuda — not with --frozen-us");
  EXPECT_THAT(items->item(2)->toolTip().toStdString(), StartsWith("--frozen-us: the cuda backend"));
  // Back to a plan cuda runs: the entry says what it said before (the device, or its absence).
  auto plain = frozenPlan(runtime::Backend::Sim);
  plain.spec.frozenUs = 0;
  panel.showRequest(plain);
  const auto cuda = runtime::cudaAvailability();
  EXPECT_EQ(items->item(2)->text().toStdString(),
            cuda.available() ? std::string("cuda") : "cuda — " + cuda.reason);
}

}  // namespace
}  // namespace ps::ui
