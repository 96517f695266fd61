// The window follows the running run on screen (issue 16 goal 4): while another writer appends
// steps, the timeline grows step by step without errors and without the writer ever waiting; a
// zoomed view stays where it was, a whole view follows the run's end, and the run the window
// ends with is the run the file holds. The app's own cpu run is shown from its first row.

#include <gtest/gtest.h>

#include <QStatusBar>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime/run/RunPlan.h"
#include "tests/common/RunTraceCompare.h"
#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "tests/ui/LiveSteps.h"
#include "tests/ui/WindowTestUtil.h"
#include "trace/store/TraceReader.h"
#include "trace/store/TraceStore.h"
#include "trace/store/TraceWriter.h"
#include "ui/MainWindow.h"
#include "ui/RunHistoryPanel.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

TEST(LiveFollow, TheRunningRunOnScreenGrowsStepByStep) {
  test::TempDir dir;
  const std::string path = dir.file("follow.sqlite");
  test::writeRun(path, test::simpleHeader(test::kLiveRanks, "done"), test::liveStepBatch(0));
  MainWindow w;
  w.resize(1200, 700);
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();

  auto store = trace::TraceStore::open(path, trace::TraceStore::Mode::ReadWrite);
  ASSERT_TRUE(store) << store.error();
  auto writer = trace::TraceWriter::begin(*store, test::simpleHeader(test::kLiveRanks, "live"));
  ASSERT_TRUE(writer) << writer.error();
  ASSERT_TRUE(writer->write(test::liveStepBatch(0)));
  const std::int64_t id = writer->runId();
  auto* history = w.findChild<RunHistoryPanel*>("runHistoryPanel");
  ASSERT_NE(history, nullptr);
  ASSERT_TRUE(QTest::qWaitFor([&] { return history->info(id) != nullptr; }, 2000));
  ASSERT_TRUE(w.showRun(id));
  ASSERT_EQ(w.timeline()->run()->opCount(), static_cast<std::size_t>(test::kLiveOpsPerStep));

  constexpr int kSteps = 12;
  std::atomic<int> writeErrors{0};
  std::atomic<bool> done{false};
  std::thread writing([&] {
    for (int k = 1; k < kSteps; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (!writer->write(test::liveStepBatch(k))) ++writeErrors;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!writer->finish(trace::RunStatus::Complete)) ++writeErrors;
    done = true;
  });
  std::vector<std::size_t> seen{w.timeline()->run()->opCount()};
  bool whole = true;
  bool zoomed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline &&
         w.timeline()->run()->info.status == trace::RunStatus::Running) {
    QTest::qWait(20);
    const std::size_t ops = w.timeline()->run()->opCount();
    if (ops != seen.back()) seen.push_back(ops);
    whole = whole && ops % test::kLiveOpsPerStep == 0;
    // Whole view until half-way: it follows the end; then zoomed in: it stays.
    if (!zoomed && seen.size() == 4) {
      zoomed = true;
      const auto range = w.timeline()->visibleRange();
      EXPECT_GE(range.end, w.timeline()->run()->timeExtent().second) << "the whole view follows";
      w.timeline()->setVisibleRange({100, 6000});
    }
  }
  writing.join();
  EXPECT_TRUE(done);
  EXPECT_EQ(writeErrors, 0) << "the writer was never refused while the window read";
  EXPECT_TRUE(whole) << "a step showed half-written";
  EXPECT_GT(seen.size(), 3u) << "seen growing, not only at the end";
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  ASSERT_EQ(w.timeline()->run()->info.status, trace::RunStatus::Complete);
  EXPECT_EQ(w.timeline()->run()->opCount(),
            static_cast<std::size_t>(kSteps * test::kLiveOpsPerStep));
  EXPECT_EQ(w.timeline()->visibleRange().start, 100) << "a zoomed view stays where it was";
  EXPECT_EQ(w.timeline()->visibleRange().end, 6000);
  EXPECT_TRUE(w.lastError().isEmpty()) << w.lastError().toStdString();
  auto file = trace::loadRunFromFile(path, id);
  ASSERT_TRUE(file) << file.error();
  test::expectSameRun(*w.timeline()->run(), *file);
}

TEST(LiveFollow, TheAppsOwnCpuRunIsShownFromItsFirstRow) {
  test::TempDir dir;
  MainWindow w;
  ASSERT_TRUE(w.openDemo(QString::fromStdString(dir.file("cpu.sqlite"))));
  runtime::RunPlanRequest request = test_window::smallCpuRequest();
  request.spec.steps = 4;
  // Each written step lingers, as a real model's step would (this one trains in milliseconds).
  request.exec.onStepWritten = [](int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  };
  // Every run the timeline takes, as it takes it (polling could miss a short run's first row).
  bool seenRunning = false;
  std::size_t mostOpsWhileRunning = 0;
  QObject::connect(w.timeline(), &TimelineView::rangeChanged, [&] {
    const trace::RunTrace* shown = w.timeline()->run();
    if (shown && shown->info.status == trace::RunStatus::Running && shown->info.source == "cpu") {
      seenRunning = true;
      mostOpsWhileRunning = std::max(mostOpsWhileRunning, shown->opCount());
    }
  });
  w.runRequest(request);
  test_window::waitForRun(w);
  EXPECT_TRUE(seenRunning) << "shown while it trained; " << w.lastError().toStdString() << " / "
                           << w.statusBar()->currentMessage().toStdString();
  const trace::RunTrace* shown = w.timeline()->run();
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->info.status, trace::RunStatus::Complete) << w.lastError().toStdString();
  EXPECT_GT(mostOpsWhileRunning, 0u) << "steps showed before the run ended";
  EXPECT_LE(mostOpsWhileRunning, shown->opCount());
  EXPECT_EQ(shown->info.source, "cpu");
  auto file = trace::loadRunFromFile(dir.file("cpu.sqlite"), shown->info.id);
  ASSERT_TRUE(file) << file.error();
  EXPECT_EQ(file->opCount(), shown->opCount());
  EXPECT_EQ(file->metrics.size(), shown->metrics.size());
}

}  // namespace
}  // namespace ps::ui
