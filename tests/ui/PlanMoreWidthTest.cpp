// The Plan panel's More knobs, opened, fit the Plan dock's width: the F / B / W µs row's three
// spin boxes beside the 18-letter label column needed 378 px of the dock's 313 and a horizontal
// scrollbar appeared under the form (1600x1000 and 1280x720 windows). A row too wide now puts
// its label above its fields.

#include <gtest/gtest.h>

#include <QScrollArea>
#include <QScrollBar>

#include "tests/common/TestUtil.h"
#include "tests/ui/PlanMoreOpened.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

TEST(PlanMoreWidth, TheOpenedMoreKnobsFitTheDockWithoutAHorizontalScrollbar) {
  for (QSize size : {QSize(1600, 1000), QSize(1280, 720)}) {
    SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()));
    test::TempDir dir;
    MainWindow w;
    QScrollArea* plan = openPlanMore(w, size, dir.file("more.sqlite"));
    ASSERT_NE(plan, nullptr);
    EXPECT_FALSE(plan->horizontalScrollBar()->isVisible())
        << "needs " << plan->widget()->width() << " px in " << plan->viewport()->width();
  }
}

}  // namespace
}  // namespace ps::ui
