// The Explore dock's sweep runs as the window's one kind of background job (ui/JobTracker.h,
// issue 33 §3): busy() stays true until the result is on screen, and a sweep started while
// another runs supersedes it: only the second's result arrives.

#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTest>

#include "ui/ExplorePanel.h"

namespace ps::ui {
namespace {

runtime::RunPlanRequest exploreBase(int microbatches) {
  runtime::RunPlanRequest base;
  base.spec.schedule = "1f1b";
  base.spec.stages = 4;
  base.spec.microbatches = microbatches;
  return base;
}

TEST(ExploreJobs, BusyUntilTheResultIsShownAndALaterSweepSupersedes) {
  ExplorePanel panel;
  QSignalSpy finished(&panel, &ExplorePanel::finished);
  panel.explore(exploreBase(6));
  panel.explore(exploreBase(10));  // the first is cancelled and never shown
  ASSERT_TRUE(panel.busy());
  // Only the event loop delivers the result: busy() must not turn false before it has.
  while (panel.busy())
    QTest::qWait(5);
  ASSERT_EQ(finished.count(), 1);
  ASSERT_TRUE(panel.result().has_value());
  bool sweptTen = false;
  for (const auto& c : panel.result()->ranked)
    sweptTen = sweptTen || c.microbatches == 10;
  EXPECT_TRUE(sweptTen) << "the result shown is the second sweep's";
  QTest::qWait(50);
  EXPECT_EQ(finished.count(), 1) << "the superseded sweep's result never arrives";
}

}  // namespace
}  // namespace ps::ui
