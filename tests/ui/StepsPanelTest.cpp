// The Steps tab of the Stats dock (ui/StepsPanel, StepsModel): the model tester over its table,
// a row per step with the culprit tinted, the straggler named in the summary, and the tab in the
// Stats dock filled when a run is shown.

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QColor>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>

#include "tests/trace/TraceBuilder.h"
#include "tests/ui/TimelineTestRuns.h"
#include "ui/LoadedRun.h"
#include "ui/StatsPanel.h"
#include "ui/StepsModel.h"
#include "ui/StepsPanel.h"

namespace ps::ui {
namespace {

// GPipe, P ranks, M micro-batches, `steps` steps; rank `slow` twice as slow (none: -1).
std::shared_ptr<const LoadedRun> gpipeRun(int P, int M, int steps, int slow) {
  trace::TraceBatch b;
  std::int64_t t0 = 0;
  for (int k = 0; k < steps; ++k) {
    std::vector<std::int64_t> free(P, t0);
    std::vector<std::vector<std::int64_t>> fEnd(P, std::vector<std::int64_t>(M)), bEnd = fEnd;
    const auto put = [&](int r, trace::OpKind kind, int m, std::int64_t ready, std::int64_t d) {
      const std::int64_t s = std::max(ready, free[r]);
      free[r] = s + (r == slow ? 2 * d : d);
      b.ops.push_back(test::compute(r, kind, m, s, free[r], k));
      return free[r];
    };
    for (int m = 0; m < M; ++m)
      for (int r = 0; r < P; ++r)
        fEnd[r][m] = put(r, trace::OpKind::F, m, r > 0 ? fEnd[r - 1][m] : t0, 100);
    for (int m = 0; m < M; ++m)
      for (int r = P - 1; r >= 0; --r)
        bEnd[r][m] = put(r, trace::OpKind::B, m, r + 1 < P ? bEnd[r + 1][m] : fEnd[r][m], 200);
    t0 = *std::max_element(free.begin(), free.end()) + 50;
  }
  auto run = std::make_shared<trace::RunTrace>(test::roundTrip(test::simpleHeader(P), b));
  return analyseInMemory("steps.sqlite", run, Explain::Now);
}

TEST(StepsModel, ARowPerStepWithTheCulpritTinted) {
  StepsModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
  StepsPanel panel;
  panel.showRun(gpipeRun(4, 3, 6, 2));
  const StepsModel& shown = panel.model();
  m.setTables(shown.table(), shown.stragglers());
  ASSERT_EQ(m.rowCount(), 6);
  EXPECT_EQ(m.columnCount(), StepsModel::kCulpritsColumn + 1);
  EXPECT_EQ(m.headerData(StepsModel::kCauseColumn, Qt::Horizontal).toString(), "warm-up");
  for (int row = 0; row < 6; ++row) {
    const QModelIndex culprits = m.index(row, StepsModel::kCulpritsColumn);
    EXPECT_EQ(m.data(culprits).toString(), "2") << row;
    EXPECT_TRUE(m.data(culprits, Qt::BackgroundRole).value<QColor>().isValid());
    EXPECT_TRUE(m.data(culprits, Qt::ToolTipRole).toString().contains("2.00x slower")) << row;
    EXPECT_EQ(m.data(m.index(row, 0)).toInt(), row);
    // GPipe's last op is rank 0's last backward, 200 ns after rank 1's.
    EXPECT_EQ(m.data(m.index(row, StepsModel::kLastColumn)).toString(), "0 (+200 ns)");
  }
  m.clear();
  EXPECT_EQ(m.rowCount(), 0);
}

TEST(StepsPanel, NamesTheStragglerAndNoneForEqualRanks) {
  StepsPanel panel;
  panel.resize(1100, 600);
  panel.showRun(gpipeRun(4, 3, 6, 2));
  testruns::shot(panel, "steps_panel");  // PIPESCOPE_UI_SHOTS=DIR: for people to look at
  EXPECT_TRUE(panel.summaryText().contains("Straggler: rank 2"))
      << panel.summaryText().toStdString();
  EXPECT_TRUE(panel.summaryText().contains("6 of 6 steps"));
  panel.showRun(gpipeRun(4, 3, 6, -1));
  EXPECT_FALSE(panel.summaryText().contains("Straggler")) << panel.summaryText().toStdString();
  EXPECT_EQ(panel.model().data(panel.model().index(0, StepsModel::kCulpritsColumn)).toString(),
            "-");
  panel.clear();
  EXPECT_EQ(panel.model().rowCount(), 0);
}

TEST(StepsPanel, IsATabOfTheStatsDockFilledWithTheShownRun) {
  StatsPanel stats;
  auto* tabs = stats.findChild<QTabWidget*>("statsTabs");
  ASSERT_NE(tabs, nullptr);
  ASSERT_EQ(tabs->count(), 2);
  EXPECT_EQ(tabs->tabText(1), "Steps");
  auto* table = stats.findChild<QTableView*>("stepsTable");
  ASSERT_NE(table, nullptr);
  stats.showRun(gpipeRun(3, 2, 4, 1));
  EXPECT_EQ(table->model()->rowCount(), 4);
  EXPECT_TRUE(stats.findChild<QLabel*>("stepsSummary")->text().contains("Straggler: rank 1"));
  stats.clear();
  EXPECT_EQ(table->model()->rowCount(), 0);
}

}  // namespace
}  // namespace ps::ui
