// Issue 34 item 18: the run history hid "[running]" / "[cancelled]" behind a horizontal
// scrollbar when a run's name was long. Rows are as wide as the list now and a long name is
// elided in its middle, so the status at its end stays in sight.

#include <gtest/gtest.h>

#include <QListWidget>
#include <QScrollBar>
#include <QTest>

#include "trace/TraceRecords.h"
#include "ui/RunHistoryPanel.h"

namespace ps::ui {
namespace {

TEST(RunHistoryLabels, ALongNameIsElidedAndTheStatusStaysInSight) {
  RunHistoryPanel panel;
  panel.resize(220, 200);
  panel.show();
  trace::RunInfo run;
  run.id = 3;
  run.name = "1f1b p=4 m=8 steps=500 cpu transformer with a long name that goes on and on";
  run.status = trace::RunStatus::Cancelled;
  panel.setRuns({run});
  QTest::qWait(20);
  auto* list = panel.findChild<QListWidget*>("runHistory");
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->count(), 1);
  EXPECT_TRUE(list->item(0)->text().endsWith("[cancelled]")) << list->item(0)->text().toStdString();
  EXPECT_EQ(list->horizontalScrollBar()->maximum(), 0) << "nothing to scroll to";
  const QRect row = list->visualItemRect(list->item(0));
  EXPECT_LE(row.right(), list->viewport()->rect().right()) << "the row fits the list's width";
}

}  // namespace
}  // namespace ps::ui
