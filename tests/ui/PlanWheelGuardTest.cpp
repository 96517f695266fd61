// Scrolling the Plan dock with the wheel turned whichever knob passed under the pointer: a run's
// B µs went from 2000 to 1975 while a user scrolled down to the More knobs, and Run would have
// run that. A knob without focus now passes the wheel on to the dock, which scrolls.

#include <gtest/gtest.h>

#include <QApplication>
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QTest>
#include <QWheelEvent>

#include "tests/common/TestUtil.h"
#include "tests/ui/PlanMoreOpened.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

// A wheel notch down over `w`'s centre; whether `w` took it. (Qt hands a wheel event that a
// widget did not take on to its parents only when it came from the window system: the dock's
// scrolling was seen under a real X server, xdotool's wheel over the F / B / W boxes.)
bool wheelDown(QWidget* w) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &event);
  return event.isAccepted();
}

TEST(PlanWheelGuard, TheWheelOverAnUnfocusedKnobScrollsTheDockAndLeavesTheKnob) {
  test::TempDir dir;
  MainWindow w;
  QScrollArea* plan = openPlanMore(w, QSize(1280, 720), dir.file("wheel.sqlite"));
  ASSERT_NE(plan, nullptr);
  QDoubleSpinBox* knob = nullptr;
  for (auto* s : plan->findChildren<QDoubleSpinBox*>())
    if (s->isVisible() && s->isEnabled() && s->value() > s->minimum()) knob = s;
  ASSERT_NE(knob, nullptr);
  const double before = knob->value();
  EXPECT_FALSE(wheelDown(knob)) << "the knob kept the wheel: the dock cannot scroll";
  EXPECT_EQ(knob->value(), before) << knob->objectName().toStdString();
  EXPECT_EQ(knob->focusPolicy(), Qt::StrongFocus);
  // Focused (clicked or tabbed into), the wheel turns it as before.
  knob->setFocus();
  QTest::qWait(20);
  if (knob->hasFocus()) {
    EXPECT_TRUE(wheelDown(knob));
    EXPECT_NE(knob->value(), before);
  }
}

}  // namespace
}  // namespace ps::ui
