// The Plan panel's Backend list is the backends' registry (runtime/run/Backends.h, issue 33 §2):
// one entry per row in its order, each saying what it is, and any model backend's entry names
// the plan feature that backend refuses (not only cuda's).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <QComboBox>
#include <QStandardItemModel>

#include "runtime/run/Backends.h"
#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

QStandardItemModel* backendItems(PlanPanel& panel) {
  auto* backend = panel.findChild<QComboBox*>("backendCombo");
  return backend ? qobject_cast<QStandardItemModel*>(backend->model()) : nullptr;
}

TEST(PlanPanelBackends, TheListIsTheRegistrysRowsEachWithItsTip) {
  PlanPanel panel;
  auto* backend = panel.findChild<QComboBox*>("backendCombo");
  QStandardItemModel* items = backendItems(panel);
  ASSERT_NE(items, nullptr);
  const auto& rows = runtime::backends();
  ASSERT_EQ(items->rowCount(), static_cast<int>(rows.size()));
  for (const runtime::BackendInfo& row : rows) {
    QStandardItem* item = items->item(static_cast<int>(row.id));
    const std::string name(row.name);
    EXPECT_EQ(item->data(Qt::UserRole).toString().toStdString(), name);
    EXPECT_THAT(item->text().toStdString(), StartsWith(name));
    EXPECT_FALSE(item->toolTip().isEmpty()) << name;  // what it is, or why it is not here
    EXPECT_THAT(backend->toolTip().toStdString(),
                HasSubstr(name + ": " + std::string(row.summary)));
    if (row.available().ok) {
      EXPECT_TRUE(item->isEnabled()) << name;
    }
  }
}

TEST(PlanPanelBackends, EveryModelBackendsEntryNamesTheFeatureItRefuses) {
  PlanPanel panel;
  QStandardItemModel* items = backendItems(panel);
  ASSERT_NE(items, nullptr);
  runtime::RunPlanRequest r;
  r.spec.schedule = "1f1b";
  r.spec.stages = 2;
  r.spec.microbatches = 2;
  r.spec.layers = 4;
  r.spec.operators = 2;  // DawnPiper's operator cut: no model backend cuts a block inside
  r.backend = runtime::Backend::Sim;
  panel.showRequest(r);
  for (const runtime::BackendInfo& row : runtime::backends()) {
    const std::string text = items->item(static_cast<int>(row.id))->text().toStdString();
    if (row.trainsModel)
      EXPECT_EQ(text, std::string(row.name) + " — not with --operators 2");
    else
      EXPECT_EQ(text, std::string(row.name));
  }
  // Without it, the cpu entry is plain again.
  r.spec.operators = 1;
  panel.showRequest(r);
  EXPECT_EQ(items->item(static_cast<int>(runtime::Backend::Cpu))->text().toStdString(), "cpu");
}

}  // namespace
}  // namespace ps::ui
