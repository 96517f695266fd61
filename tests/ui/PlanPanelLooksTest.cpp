// What the plan panel looks like (issue 11, defects 7, 10, 12): a tooltip on every knob, the
// Layers = P·V hint with Balance off, the dark palette's disabled and placeholder colours, and a
// panel that fits the dock (PIPESCOPE_UI_SHOTS=DIR saves screenshots).

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include "runtime/run/RunConfig.h"
#include "tests/common/TestUtil.h"
#include "tests/ui/PlanPanelRequests.h"
#include "ui/DarkPalette.h"
#include "ui/PlanPanel.h"
#include "ui/PlanPanelTips.h"
#include "ui/RunController.h"

namespace ps::ui {
namespace {

using test_requests::configOf;
using test_requests::oddCpuRequest;
using test_requests::oddSimRequest;

TEST(PlanPanel, EveryKnobHasATooltip) {
  PlanPanel panel;
  int knobs = 0;
  for (QWidget* w : panel.findChildren<QWidget*>()) {
    const bool knob = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
                      qobject_cast<QAbstractButton*>(w);
    if (!knob) continue;
    ++knobs;
    EXPECT_FALSE(w->toolTip().isEmpty()) << w->objectName().toStdString();
  }
  EXPECT_GE(knobs, 20);
  EXPECT_TRUE(panel.findChild<QSpinBox*>("layersSpin")->toolTip().contains("P·V"));
  EXPECT_TRUE(panel.findChild<QDoubleSpinBox*>("linkSpin")->toolTip().contains("free"));
}

TEST(PlanPanel, LayersAtPVSayBoundariesCannotMoveAndBalanceIsOff) {
  PlanPanel panel;
  auto* hint = panel.findChild<QLabel*>("layersHint");
  auto* balance = panel.findChild<QPushButton*>("balanceButton");
  ASSERT_TRUE(hint && balance);
  EXPECT_TRUE(hint->isVisibleTo(&panel));
  EXPECT_FALSE(balance->isEnabled());
  EXPECT_EQ(balance->toolTip().toStdString(), tips::kBalanceFixed);
  panel.findChild<QSpinBox*>("layersSpin")->setValue(8);
  EXPECT_FALSE(hint->isVisibleTo(&panel));
  EXPECT_TRUE(balance->isEnabled());
  QSignalSpy balanced(&panel, &PlanPanel::balanceRequested);
  panel.setBoundaries("3,4,6");
  QTest::mouseClick(balance, Qt::LeftButton);
  EXPECT_EQ(balanced.count(), 1);
  EXPECT_EQ(panel.request().spec.boundaries, "") << "Balance lets the partitioner cut";
  // Layers set to P·V by hand is the same trap.
  panel.findChild<QSpinBox*>("layersSpin")->setValue(4);
  EXPECT_TRUE(hint->isVisibleTo(&panel));
  EXPECT_FALSE(balance->isEnabled());
}

// WCAG contrast ratio of two colours.
double contrast(const QColor& a, const QColor& b) {
  auto luminance = [](const QColor& c) {
    auto channel = [](double v) {
      return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
  };
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

TEST(DarkPalette, DisabledLooksDisabledAndPlaceholdersAreReadable) {
  const QPalette p = darkPalette();
  // Disabled text is clearly dimmer than enabled text, on buttons and in fields.
  for (auto role : {QPalette::ButtonText, QPalette::WindowText, QPalette::Text})
    EXPECT_GT(contrast(p.color(QPalette::Active, role), p.color(QPalette::Button)),
              1.8 * contrast(p.color(QPalette::Disabled, role), p.color(QPalette::Button)))
        << role;
  EXPECT_NE(p.color(QPalette::Disabled, QPalette::Button),
            p.color(QPalette::Active, QPalette::Button));
  // Placeholder text: readable on the field (WCAG AA for text, 4.5:1), dimmer than text.
  EXPECT_GE(contrast(p.color(QPalette::Active, QPalette::PlaceholderText),
                     p.color(QPalette::Active, QPalette::Base)),
            4.5);
  EXPECT_LT(contrast(p.color(QPalette::Active, QPalette::PlaceholderText),
                     p.color(QPalette::Active, QPalette::Base)),
            contrast(p.color(QPalette::Active, QPalette::Text),
                     p.color(QPalette::Active, QPalette::Base)));
}

// PIPESCOPE_UI_SHOTS=DIR: the panel as a dock holds it, light and dark, More shut and open.
TEST(PlanPanel, FitsTheDockWithMoreCollapsed) {
  QWidget dock;
  dock.setFixedWidth(300);
  auto* layout = new QVBoxLayout(&dock);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* panel = new PlanPanel(&dock);
  layout->addWidget(panel);
  layout->addStretch(1);
  dock.show();
  EXPECT_LE(panel->sizeHint().height(), 420);
  EXPECT_LE(panel->minimumSizeHint().width(), 300);
  auto* toggle = panel->findChild<QToolButton*>("moreToggle");
  auto* more = panel->findChild<QWidget*>("moreGroup");
  ASSERT_TRUE(toggle && more);
  EXPECT_FALSE(more->isVisible());
  QTest::mouseClick(toggle, Qt::LeftButton);
  EXPECT_TRUE(more->isVisible());
  QTest::mouseClick(toggle, Qt::LeftButton);
  EXPECT_FALSE(more->isVisible());
  // cpu and cuda add the model's two rows.
  auto* backend = panel->findChild<QComboBox*>("backendCombo");
  backend->setCurrentIndex(backend->findData("cpu"));
  EXPECT_LE(panel->sizeHint().height(), 480);
  std::cout << "plan panel height, More collapsed: cpu " << panel->sizeHint().height();
  backend->setCurrentIndex(backend->findData("sim"));
  std::cout << ", sim " << panel->sizeHint().height() << " px; width " << panel->sizeHint().width()
            << " px\n";
  const char* shots = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!shots) return;
  const QPalette light = QApplication::palette();
  for (const bool dark : {false, true}) {
    QApplication::setPalette(dark ? darkPalette() : light);
    for (const bool open : {false, true}) {
      panel->setMoreOpen(open);
      panel->findChild<QSpinBox*>("microbatchesSpin")->setValue(open ? 2 : 8);
      panel->findChild<QComboBox*>("scheduleCombo")
          ->setCurrentIndex(panel->findChild<QComboBox*>("scheduleCombo")->findData("zb-h1"));
      dock.adjustSize();
      dock.resize(300, layout->sizeHint().height());
      QApplication::processEvents();
      dock.grab().save(QString("%1/plan-panel-%2-%3.png")
                           .arg(shots, dark ? "dark" : "light", open ? "more" : "collapsed"));
    }
  }
  // A cpu run's knobs, and an imported torch CSV offered as a simulation.
  QApplication::setPalette(light);
  panel->setMoreOpen(false);
  panel->showRequest(oddCpuRequest());
  panel->setNotRerunnable("run was imported from a torch CSV", oddSimRequest());
  dock.resize(300, layout->sizeHint().height());
  QApplication::processEvents();
  dock.grab().save(QString("%1/plan-panel-light-cpu-imported.png").arg(shots));
}

}  // namespace
}  // namespace ps::ui
