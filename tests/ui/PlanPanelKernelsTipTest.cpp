// The Plan panel's cpu backend entry names the kernels the cpu backend computes with, in the
// core's words (runtime::describeBackend): ui includes no kernels/ header (DESIGN §1).

#include <gtest/gtest.h>

#include <QComboBox>
#include <QStandardItemModel>

#include "runtime/run/BackendDescription.h"
#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

TEST(PlanPanelKernelsTip, TheCpuEntrySaysWhichBlasAndElementwiseKernelsItRuns) {
  PlanPanel panel;
  auto* backend = panel.findChild<QComboBox*>("backendCombo");
  ASSERT_NE(backend, nullptr);
  auto* items = qobject_cast<QStandardItemModel*>(backend->model());
  ASSERT_NE(items, nullptr);
  ASSERT_EQ(items->item(1)->text().toStdString(), "cpu");
  const runtime::BackendDescription cpu = runtime::describeBackend(runtime::Backend::Cpu);
  ASSERT_FALSE(cpu.blas.empty());
  std::string expected =
      "Rank threads training the model: " + cpu.blas + ", elementwise " + cpu.simd;
  if (!cpu.warning.empty()) expected += "\n" + cpu.warning;
  EXPECT_EQ(items->item(1)->toolTip().toStdString(), expected);
}

}  // namespace
}  // namespace ps::ui
