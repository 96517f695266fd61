// MainWindow::currentRunChanged (issue 33 §3): the one notification the docks that show the
// current run follow. It fires with the run shown when a run is selected, when the A of a
// comparison changes, and when a simulated run's explanation arrives; a dock subscribed to it
// (here a test's own slot) needs no other call site.

#include <gtest/gtest.h>

#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>
#include <vector>

#include "tests/common/TestUtil.h"
#include "tests/ui/WindowTestUtil.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"

namespace ps::ui {
namespace {

TEST(CurrentRunChanged, FollowsSelectionComparisonAndExplanation) {
  test::TempDir dir;
  MainWindow w;
  std::vector<std::shared_ptr<const LoadedRun>> seen;
  QObject::connect(&w, &MainWindow::currentRunChanged,
                   [&](const std::shared_ptr<const LoadedRun>& run) { seen.push_back(run); });
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("runs.sqlite"))));
  ASSERT_FALSE(seen.empty()) << "the demo's run is shown";
  EXPECT_EQ(seen.back()->id(), 1);

  // A second run from the Plan panel: shown, then explained (the same run, its causes added).
  w.findChild<QSpinBox*>("microbatchesSpin")->setValue(12);
  w.show();
  QTest::mouseClick(w.findChild<QPushButton*>("runButton"), Qt::LeftButton);
  test_window::waitForRun(w);
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.explanationsPending() == 0; }, 20000));
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen.back()->trace->info.num_microbatches, 12);
  EXPECT_NE(seen.back()->why, nullptr) << "the last notification carries the explanation";

  // Back to run 1, then compare 2 with 1: A (run 2) becomes current again.
  seen.clear();
  ASSERT_TRUE(w.showRun(1));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen.back()->id(), 1);
  ASSERT_TRUE(w.compareRuns(2, 1)) << w.lastError().toStdString();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen.back()->id(), 2);
}

}  // namespace
}  // namespace ps::ui
