// The Explore dock's Synthesise (issue 36 §1): a schedule searched under the Plan panel's caps,
// shown against the generators under the same caps (refused rows greyed), the cap drawn on the
// plot, and a click on its row loading it from the torch CSV it was saved as.

#include <gtest/gtest.h>

#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>

#include "runtime/run/RunPlan.h"
#include "ui/ExplorePanel.h"
#include "ui/ParetoPlot.h"

namespace ps::ui {
namespace {

TEST(ExploreSynth, SearchesUnderThePlansCapsShowsTheCapAndAClickLoadsTheCsv) {
  QStandardPaths::setTestModeEnabled(true);  // the CSV goes under the test's own data folder
  ExplorePanel panel;
  panel.resize(900, 400);
  panel.show();
  runtime::RunPlanRequest base;
  base.spec.schedule = "1f1b";
  base.spec.stages = 4;
  base.spec.microbatches = 8;
  base.spec.uniform.actMb = 1;
  base.spec.rankMemoryGb = {0.005, 0.005, 0.005, 0.005};  // 5.12 MiB: ZB-H2 and GPipe need more
  QSignalSpy finished(&panel, &ExplorePanel::finished);
  panel.synthesise(base);
  ASSERT_TRUE(finished.count() > 0 || finished.wait(120000));
  ASSERT_TRUE(panel.synthResult().has_value());
  const auto& s = *panel.synthResult();
  EXPECT_EQ(panel.table()->rowCount(), static_cast<int>(1 + s.baselines.size()));
  EXPECT_EQ(panel.table()->item(0, 0)->text(), "synth");
  ASSERT_TRUE(panel.plot()->cap().has_value());
  EXPECT_NEAR(*panel.plot()->cap(), 0.005 * 1024 * 1024 * 1024, 1.0);  // whole bytes
  int refused = 0;
  for (std::size_t k = 0; k < s.baselines.size(); ++k)
    if (!s.baselines[k].stepNs) {
      ++refused;  // greyed, not a plan to load
      EXPECT_EQ(panel.table()->item(static_cast<int>(k + 1), 0)->flags(), Qt::NoItemFlags);
    }
  EXPECT_EQ(refused, 2) << "gpipe (8 MiB) and zb-h2 (7 MiB) pass 5.12 MiB";
  QSignalSpy chosen(&panel, &ExplorePanel::candidateChosen);
  panel.choose(0);
  ASSERT_EQ(chosen.count(), 1);
  const auto request = chosen.at(0).at(0).value<runtime::RunPlanRequest>();
  ASSERT_FALSE(request.spec.scheduleFile.empty());
  EXPECT_TRUE(QFile::exists(QString::fromStdString(request.spec.scheduleFile)));
  // The loaded plan is the synthesised one: the same step, within the caps.
  auto built = runtime::buildPlan(request.spec);
  ASSERT_TRUE(built.ok()) << built.error();
  auto sim = runtime::simulatePlan(*built, nullptr);
  ASSERT_TRUE(sim.ok()) << sim.error();
  EXPECT_EQ(sim->makespan, s.stepNs);
}

}  // namespace
}  // namespace ps::ui
