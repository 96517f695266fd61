// Issue 30 item 14: the app opened a run in O(ranks²): the Teach dock's table resized its header
// to the contents of every column for each cell it set (2048 ranks 27 s, 4000 ranks 101 s), and a
// stray op row on rank 1,000,000 made a column for every number below it. The table now has one
// column per rank present, sized once.

#include <gtest/gtest.h>

#include <QTableWidget>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "ui/MainWindow.h"
#include "ui/TeachPanel.h"

namespace ps::ui {
namespace {

// One forward per rank, each after the one before: a pipeline of `ranks` stages, m = 1.
trace::TraceBatch forwardChain(const std::vector<int>& ranks) {
  trace::TraceBatch batch;
  std::int64_t t = 0;
  for (int r : ranks) {
    batch.ops.push_back(test::compute(r, trace::OpKind::F, 0, t, t + 1000));
    t += 1000;
  }
  return batch;
}

TEST(TeachManyRanks, ARunOfThreeThousandRanksOpensWithAColumnEach) {
  constexpr int kRanks = 3000;
  test::TempDir dir;
  const std::string path = dir.file("wide.sqlite");
  std::vector<int> ranks(kRanks);
  for (int r = 0; r < kRanks; ++r)
    ranks[r] = r;
  test::writeRun(path, test::simpleHeader(kRanks, "wide"), forwardChain(ranks));
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  auto* teach = w.findChild<TeachPanel*>("teachPanel");
  ASSERT_NE(teach, nullptr);
  EXPECT_EQ(teach->count(), std::size_t{kRanks});
  ASSERT_EQ(teach->columnRanks().size(), std::size_t{kRanks});
  auto* table = teach->findChild<QTableWidget*>("teachTable");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->columnCount(), kRanks);
  EXPECT_EQ(table->horizontalHeaderItem(kRanks - 1)->text(), "rank 2999");
  // Step to the last forward: every rank before it has its 1 µs done, the bubble so far is what
  // it waited before and after.
  teach->setPosition(kRanks - 1);
  EXPECT_TRUE(teach->currentText().contains("rank 2999 starts F"))
      << teach->currentText().toStdString();
  EXPECT_EQ(table->item(1, 0)->text(), "2.998 ms");
  EXPECT_EQ(table->item(1, kRanks - 1)->text(), "2.999 ms");
}

TEST(TeachManyRanks, AStrayRankNumberIsOneColumn) {
  test::TempDir dir;
  const std::string path = dir.file("stray.sqlite");
  test::writeRun(path, test::simpleHeader(3, "stray"), forwardChain({0, 1, 2, 50000}));
  MainWindow w;
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  auto* teach = w.findChild<TeachPanel*>("teachPanel");
  ASSERT_NE(teach, nullptr);
  EXPECT_EQ(teach->columnRanks(), (std::vector<int>{0, 1, 2, 50000}));
  auto* table = teach->findChild<QTableWidget*>("teachTable");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->columnCount(), 4);
  EXPECT_EQ(table->horizontalHeaderItem(3)->text(), "rank 50000");
}

}  // namespace
}  // namespace ps::ui
