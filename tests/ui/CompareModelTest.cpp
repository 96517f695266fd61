// The Compare pane's table model: the model tester over it, and the cells people read (the
// same table as `pipescope-cli compare`, so the texts match RunComparison's).

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QFont>
#include <QHeaderView>
#include <QTableView>

#include <cstdlib>

#include "tests/trace/TraceBuilder.h"
#include "trace/Synthetic.h"
#include "ui/CompareModel.h"

namespace ps::ui {
namespace {

trace::RunAnalysis gpipe(int microbatches, std::int64_t id) {
  trace::SyntheticGpipe g;  // p=4, t=1 µs
  g.microbatches = microbatches;
  auto a = trace::analyzeRun(
      test::roundTrip(trace::syntheticGpipeHeader(g), trace::syntheticGpipeStep(g, 0)));
  a.run.id = id;
  return a;
}

QString cell(const CompareModel& m, int row, int column, int role = Qt::DisplayRole) {
  return m.data(m.index(row, column), role).toString();
}

TEST(CompareModel, ShowsTheComparisonRowsAndWhatDiffers) {
  CompareModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_EQ(m.rowCount(), 0);
  m.setRuns(gpipe(8, 1), gpipe(16, 2));

  // 7 number rows (step time, bubble, steady bubble, peak memory, mean busy, link bytes, loss),
  // the "what differs" heading, one knob: micro-batches 8 -> 16.
  ASSERT_EQ(m.rowCount(), 9);
  ASSERT_EQ(m.columnCount(), 5);
  EXPECT_EQ(m.headerData(1, Qt::Horizontal).toString(), "A: run 1");
  EXPECT_EQ(m.headerData(2, Qt::Horizontal).toString(), "B: run 2");
  EXPECT_EQ(m.headerData(3, Qt::Horizontal).toString(), "B − A");
  EXPECT_EQ(m.headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString(),
            "run 1 \"synthetic gpipe p=4 m=8\"");

  // Step 3t(m+p-1): 33 µs and 57 µs.
  EXPECT_EQ(cell(m, 0, 0), "step time");
  EXPECT_EQ(cell(m, 0, 1), "33.000 µs");
  EXPECT_EQ(cell(m, 0, 2), "57.000 µs");
  EXPECT_EQ(cell(m, 0, 3), "+24.000 µs");
  EXPECT_EQ(cell(m, 0, 4), "1.727×");
  EXPECT_EQ(cell(m, 0, 1, Qt::ToolTipRole), "33000 ns");
  // Bubble (p-1)/(m+p-1): 3/11 and 3/19, the difference in percentage points.
  EXPECT_EQ(cell(m, 1, 0), "bubble");
  EXPECT_EQ(cell(m, 1, 1), "27.27 %");
  EXPECT_EQ(cell(m, 1, 2), "15.79 %");
  EXPECT_EQ(cell(m, 1, 3), "-11.48 points");
  EXPECT_EQ(cell(m, 1, 3, Qt::ToolTipRole), "-11.4833 percentage points");
  // One step: no steady bubble in either run, so no difference or ratio.
  EXPECT_EQ(cell(m, 2, 1), "-");
  EXPECT_EQ(cell(m, 2, 4), "-");
  EXPECT_EQ(m.data(m.index(0, 1), Qt::TextAlignmentRole).toInt(),
            int(Qt::AlignRight | Qt::AlignVCenter));
  EXPECT_EQ(cell(m, 6, 0), "loss");

  EXPECT_EQ(cell(m, 7, 0), "what differs");
  EXPECT_TRUE(m.data(m.index(7, 0), CompareModel::SectionRole).toBool());
  EXPECT_TRUE(m.data(m.index(7, 0), Qt::FontRole).value<QFont>().bold());
  EXPECT_FALSE(m.data(m.index(8, 0), CompareModel::SectionRole).toBool());
  EXPECT_EQ(cell(m, 8, 0), "micro-batches");
  EXPECT_EQ(cell(m, 8, 1), "8");
  EXPECT_EQ(cell(m, 8, 2), "16");
  EXPECT_EQ(cell(m, 8, 0, Qt::ToolTipRole), "micro-batches (microbatches)");

  m.clear();
  EXPECT_EQ(m.rowCount(), 0);
  EXPECT_EQ(m.headerData(1, Qt::Horizontal).toString(), "A");
}

TEST(CompareModel, LongKnobValuesAreElidedWithTheWholeValueInTheTooltip) {
  auto a = gpipe(8, 1);
  auto b = gpipe(8, 2);
  const std::string longName(60, 'x');
  a.run.config_json = R"({"schedule":"gpipe","note":"short"})";
  b.run.config_json = R"({"schedule":"gpipe","note":")" + longName + "\"}";
  CompareModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
  m.setRuns(a, b);
  ASSERT_EQ(m.rowCount(), 9);
  EXPECT_EQ(cell(m, 8, 0), "note");
  EXPECT_EQ(cell(m, 8, 1), "short");
  EXPECT_EQ(cell(m, 8, 2).size(), 40);
  EXPECT_TRUE(cell(m, 8, 2).endsWith(QChar(0x2026)));
  EXPECT_EQ(cell(m, 8, 2, Qt::ToolTipRole).toStdString(), longName);

  // The same run twice: nothing differs, and the heading says so.
  m.setRuns(a, a);
  ASSERT_EQ(m.rowCount(), 8);
  EXPECT_EQ(cell(m, 7, 0), "what differs: nothing in the runs' configs");
}

// Looked at by eye: PIPESCOPE_UI_SHOTS=DIR writes the table as the Compare pane shows it.
TEST(CompareModel, ScreenshotOfTheTable) {
  const char* shots = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!shots) GTEST_SKIP() << "set PIPESCOPE_UI_SHOTS=DIR to write the screenshot";
  auto a = gpipe(8, 1);
  auto b = gpipe(16, 2);
  b.run.config_json = R"({"schedule":"gpipe","stages":4,"microbatches":16,"act_mb":1,)"
                      R"("link_gbps":10})";
  CompareModel m;
  m.setRuns(a, b);
  QTableView view;
  view.setModel(&m);
  view.horizontalHeader()->setStretchLastSection(true);
  view.verticalHeader()->hide();
  view.resize(640, 380);
  view.resizeColumnsToContents();
  view.show();
  EXPECT_TRUE(view.grab().save(QString(shots) + "/compare_model.png"));
}

}  // namespace
}  // namespace ps::ui
