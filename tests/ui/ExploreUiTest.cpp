// The Explore dock and the issue-14 knobs of the Plan panel: the Pareto front of a sweep, a
// chosen point becoming the plan on screen, and the split/forward-only/rank knobs reading back.

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "ui/ExplorePanel.h"
#include "ui/ParetoPlot.h"
#include "ui/PlanPanel.h"

namespace ps::ui {
namespace {

TEST(ParetoFront, KeepsThePointsNoOtherBeatsOnBothAxes) {
  const std::vector<ParetoPoint> points{{10, 50, "a"}, {20, 30, "b"}, {20, 40, "c"},
                                        {30, 30, "d"}, {40, 10, "e"}, {5, 90, "f"}};
  EXPECT_EQ(paretoFront(points), (std::vector<int>{5, 0, 1, 4}));
  EXPECT_TRUE(paretoFront({}).empty());
}

TEST(ExplorePanel, SweepsAroundThePlanAndAClickLoadsTheCandidate) {
  ExplorePanel panel;
  panel.resize(600, 500);
  panel.show();
  runtime::RunPlanRequest base;
  base.spec.schedule = "1f1b";
  base.spec.stages = 4;
  base.spec.microbatches = 8;
  base.spec.uniform.actMb = 1;
  QSignalSpy finished(&panel, &ExplorePanel::finished);
  panel.explore(base);
  EXPECT_TRUE(panel.busy() || finished.count() > 0);
  ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
  ASSERT_TRUE(panel.result().has_value());
  const auto& ranked = panel.result()->ranked;
  ASSERT_GT(ranked.size(), 10u);
  // The refused candidates follow the ranked ones (ExploreRefusedTest).
  EXPECT_EQ(panel.table()->rowCount(),
            static_cast<int>(ranked.size() + panel.result()->refused.size()));
  EXPECT_FALSE(panel.plot()->front().empty());
  // The front's first point (least memory) and a click on it.
  const int least = panel.plot()->front().front();
  QSignalSpy chosen(&panel, &ExplorePanel::candidateChosen);
  QTest::mouseClick(panel.plot(), Qt::LeftButton, {}, panel.plot()->positionOf(least).toPoint());
  ASSERT_EQ(chosen.count(), 1);
  const auto request = chosen.at(0).at(0).value<runtime::RunPlanRequest>();
  const auto& c = ranked[static_cast<std::size_t>(least)];
  EXPECT_EQ(request.spec.schedule, c.schedule);
  EXPECT_EQ(request.spec.microbatches, c.microbatches);
  EXPECT_EQ(request.spec.boundaries, runtime::boundariesText(c.boundaries));
  EXPECT_EQ(panel.plot()->selected(), least);
  // A row does the same.
  panel.choose(0);
  ASSERT_EQ(chosen.count(), 2);
  EXPECT_EQ(chosen.at(1).at(0).value<runtime::RunPlanRequest>().spec.schedule, ranked[0].schedule);
}

TEST(PlanPanelPaperKnobs, SplitForwardOnlyAndRankListsReadBack) {
  PlanPanel panel;
  runtime::RunPlanRequest shown;
  shown.spec.schedule = "1f1b";
  shown.spec.stages = 4;
  shown.spec.rankSpeed = {1, 1, 2, 1};
  panel.showRequest(shown);
  auto* speeds = panel.findChild<QLineEdit*>("rankSpeedEdit");
  ASSERT_NE(speeds, nullptr);
  EXPECT_EQ(speeds->text(), "1,1,2,1");
  EXPECT_EQ(panel.request().spec.rankSpeed, shown.spec.rankSpeed);
  speeds->setText("1, 0.5, 1.5, 1");
  panel.findChild<QLineEdit*>("rankMemoryEdit")->setText("16,16,8,8");
  panel.findChild<QCheckBox*>("splitBackwardCheck")->setChecked(true);
  auto r = panel.request();
  EXPECT_EQ(r.spec.rankSpeed, (std::vector<double>{1, 0.5, 1.5, 1}));
  EXPECT_EQ(r.spec.rankMemoryGb, (std::vector<double>{16, 16, 8, 8}));
  EXPECT_TRUE(r.spec.splitBackward);
  EXPECT_FALSE(r.spec.forwardOnly);
  panel.findChild<QCheckBox*>("splitBackwardCheck")->setChecked(false);
  panel.findChild<QCheckBox*>("forwardOnlyCheck")->setChecked(true);
  r = panel.request();
  EXPECT_TRUE(r.spec.forwardOnly);
  EXPECT_FALSE(r.spec.splitBackward);
  // A value that is not a number reaches buildPlan, whose message names the flag and the rank.
  speeds->setText("1,x,1,1");
  const auto built = runtime::buildPlan(panel.request().spec);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.error().find("--rank-speed: rank 1's"), std::string::npos) << built.error();
}

}  // namespace
}  // namespace ps::ui
