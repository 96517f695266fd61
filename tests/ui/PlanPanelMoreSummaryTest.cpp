// Issue 34 item 20: the collapsed "More" section's summary stays on one line beside its toggle,
// elided, with the whole text in its tooltip; before, a long summary wrapped into several lines
// under the knobs.

#include <gtest/gtest.h>

#include <QApplication>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTest>
#include <QVBoxLayout>

#include <cstdlib>

#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

TEST(PlanPanelMoreSummary, ALongSummaryStaysOnOneLineWithTheWholeTextInItsTooltip) {
  QWidget dock;
  dock.setFixedWidth(300);
  auto* layout = new QVBoxLayout(&dock);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* panel = new PlanPanel(&dock);
  layout->addWidget(panel);
  layout->addStretch(1);
  dock.show();
  auto* summary = panel->findChild<QLabel*>("moreSummary");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->text().toStdString(), "defaults");
  const int oneLine = summary->height();
  panel->findChild<QDoubleSpinBox*>("latencySpin")->setValue(5);
  qobject_cast<QDoubleSpinBox*>(panel->knobWidget("act_mb"))->setValue(2);
  qobject_cast<QDoubleSpinBox*>(panel->knobWidget("fwd_us"))->setValue(150);
  QApplication::processEvents();
  const QString full = "latency 5 µs, act 2 MB, F/B/W 150/200/100 µs";
  EXPECT_TRUE(summary->toolTip().startsWith(full)) << summary->toolTip().toStdString();
  EXPECT_NE(summary->text(), full) << "elided: the whole text does not fit beside the toggle";
  EXPECT_TRUE(summary->text().endsWith(QChar(0x2026))) << summary->text().toStdString();
  EXPECT_FALSE(summary->wordWrap());
  EXPECT_LE(summary->height(), oneLine);
  EXPECT_LE(summary->geometry().right(), panel->width());
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    dock.grab().save(QString(dir) + "/plan-more-summary-elided.png");
  // Wide enough, it shows whole.
  dock.setFixedWidth(700);
  QApplication::processEvents();
  EXPECT_EQ(summary->text(), full);
}

}  // namespace
}  // namespace ps::ui
