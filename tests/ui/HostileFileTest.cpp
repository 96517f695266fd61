// Files and runs that lie (issue 12): a header claiming 2^31-1 ranks while two hold ops (case 7)
// and ops at the ends of the int64 range (case 13). The app must open them, paint them within a
// couple of seconds and compute no signed overflow (the dev build's UBSan halts on a report, so
// any overflow fails the test binary).

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <QDockWidget>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTest>

#include <climits>
#include <cstdint>
#include <cstdio>

#include "tests/common/TestUtil.h"
#include "tests/trace/TraceBuilder.h"
#include "ui/LinkMatrixView.h"
#include "ui/MainWindow.h"
#include "ui/MemoryView.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// Screenshots for a person to look at, when PIPESCOPE_UI_SHOTS names a folder.
void hostileShot(QWidget& w, const char* name) {
  const QByteArray dir = qgetenv("PIPESCOPE_UI_SHOTS");
  if (!dir.isEmpty()) w.grab().save(QString::fromUtf8(dir) + "/" + name + ".png");
}

using test::rawSql;  // as a hostile writer would

// Two ranks with forward, backward and a send each, and memory samples.
trace::TraceBatch twoRankBatch() {
  trace::TraceBatch batch;
  for (int r = 0; r < 2; ++r) {
    batch.ops.push_back(test::compute(r, trace::OpKind::F, 0, 1000 + r * 1000, 2000 + r * 1000));
    batch.ops.push_back(test::compute(r, trace::OpKind::B, 0, 5000 - r * 1000, 7000 - r * 1000));
    batch.memory.push_back({r, 1000, 1 << 20});
    batch.memory.push_back({r, 4000, 3 << 20});
  }
  batch.ops.push_back(test::send(0, 1, 4096, 2000, 2100));
  return batch;
}

TEST(HostileFile, TwoBillionClaimedRanksOpenAndPaintFast) {
  test::TempDir dir;
  const std::string path = dir.file("ranks.sqlite");
  test::writeRun(path, test::simpleHeader(2, "liar"), twoRankBatch());
  rawSql(path, "UPDATE run SET num_ranks = 2147483647, schedule = '1f1b', num_microbatches = 1");
  QElapsedTimer timer;
  timer.start();
  MainWindow w;
  w.resize(1400, 820);
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  w.show();
  QImage image = w.grab().toImage();
  // The Links tab (the rank-by-rank matrix) painted too.
  auto* links = w.findChild<QDockWidget*>("linkDock");
  ASSERT_NE(links, nullptr);
  links->raise();
  image = w.grab().toImage();
  const qint64 ms = timer.elapsed();
  EXPECT_FALSE(image.isNull());
  EXPECT_LT(ms, 4000) << "opening and painting took " << ms << " ms";
  std::printf("claimed 2^31-1 ranks: opened and painted in %lld ms\n", static_cast<long long>(ms));
  EXPECT_GT(w.timeline()->drawnItems(), 0u);
  hostileShot(w, "hostile-ranks");
}

// End to end (case 13): ops and samples at the ends of the int64 axis written into the file;
// the loader leaves them out with a warning the window shows, and nothing overflows on the way.
TEST(HostileFile, ExtremeTimestampsOpenWithTheLoadersWarning) {
  test::TempDir dir;
  const std::string path = dir.file("times.sqlite");
  test::writeRun(path, test::simpleHeader(2, "extremes"), twoRankBatch());
  rawSql(path,
         "UPDATE op SET start_ns = -9223372036854775807 - 1 WHERE rank = 0 AND kind = 'F';"
         "UPDATE op SET end_ns = 9223372036854775807 WHERE rank = 1 AND kind = 'B';"
         "UPDATE memory SET t_ns = 9223372036854775807 WHERE rank = 1 AND t_ns = 4000;");
  MainWindow w;
  w.resize(1400, 820);
  ASSERT_TRUE(w.openTrace(QString::fromStdString(path), false)) << w.lastError().toStdString();
  w.show();
  w.grab();
  const trace::RunTrace* run = w.timeline()->run();
  ASSERT_NE(run, nullptr);
  ASSERT_FALSE(run->warnings.empty());
  EXPECT_TRUE(
      w.statusBar()->currentMessage().startsWith(QString::fromStdString(run->warnings.front())))
      << w.statusBar()->currentMessage().toStdString();
  auto* stats = w.findChild<QPlainTextEdit*>("reportView");
  ASSERT_NE(stats, nullptr);
  EXPECT_TRUE(stats->toPlainText().contains(QString::fromStdString(run->warnings.front())));
  EXPECT_FALSE(stats->toPlainText().contains(QRegularExpression(" -\\d")))
      << "no negative figure: " << stats->toPlainText().toStdString();
  QTest::keyClick(w.timeline(), Qt::Key_W);
  w.timeline()->fit();
  w.grab();
  hostileShot(w, "hostile-times");
}

}  // namespace
}  // namespace ps::ui

namespace ps::ui {
namespace {

constexpr std::int64_t kMin = INT64_MIN, kMax = INT64_MAX;

// The rank-pair matrix of a run whose header claims a million ranks paints a screenful of cells,
// not 10^12 (before: every (src, dst) pair, each looked up in a linear scan of the links).
TEST(HostileRun, LinkMatrixOfAMillionRanksPaintsOnlyWhatShows) {
  LinkMatrixView matrix;
  matrix.resize(400, 300);
  trace::LinkSummary link;
  link.src = 0;
  link.dst = 1;
  link.bytes = 4096;
  link.busy_ns = 100;
  link.ops = 1;
  matrix.setLinks({link}, 1'000'000, 1000);
  QElapsedTimer timer;
  timer.start();
  const QImage image = matrix.grab().toImage();
  EXPECT_LT(timer.elapsed(), 2000);
  EXPECT_GT(matrix.drawnCells(), 0u);
  EXPECT_LE(matrix.drawnCells(), 400u * 400u);
  EXPECT_EQ(matrix.toolTipAt(matrix.rect().center()).left(4), "rank");
}

// Scrolling a million tracks: each placement is a binary search plus the tracks on screen
// (before: a walk over every rank per paint, per wheel step and per scroll-bar update).
TEST(HostileRun, TrackLayoutOfAMillionRanksAnswersWithoutWalkingThem) {
  TrackLayout layout;
  layout.reset(1'000'000);
  layout.setPinned(999'999, true);
  QElapsedTimer timer;
  timer.start();
  std::size_t placed = 0;
  for (int k = 0; k < 3000; ++k) {
    const int offset = k * 15'000;
    placed += layout.place(26, 800, offset).size();
    EXPECT_GE(layout.maxOffset(800), offset);
    EXPECT_EQ(layout.scrolledTop(k * 300), k * 300 * layout.trackHeight(0));
  }
  EXPECT_LT(timer.elapsed(), 2000);
  EXPECT_GT(placed, 3000u * 10u);
  // The pinned last rank comes first, then the scrolled ones from the offset on.
  const auto tracks = layout.place(26, 800, 10 * layout.trackHeight(0));
  ASSERT_GE(tracks.size(), 3u);
  EXPECT_EQ(tracks[0].rank, 999'999);
  EXPECT_EQ(tracks[1].rank, 10);
  EXPECT_EQ(tracks[1].top, 26 + layout.trackHeight(0));
}

// A run whose ops sit at both ends of the int64 axis, as an unclamped file would load.
std::shared_ptr<trace::RunTrace> extremeRun() {
  auto run = std::make_shared<trace::RunTrace>();
  run->info.name = "extremes";
  run->info.source = "sim";
  run->info.num_ranks = 2;
  run->ranks.resize(2);
  for (int r = 0; r < 2; ++r) {
    run->ranks[r].info.rank = r;
    auto& c = run->ranks[r].lane(trace::Lane::Compute);
    c.push(kMin, kMin + 10, trace::OpKind::F, r, 0, 0, -1, -1, -1);
    c.push(-5, 5, trace::OpKind::B, r, 0, 0, -1, -1, -1);
    c.push(kMax - 10, kMax, trace::OpKind::F, r, 1, 0, -1, -1, -1);
    run->ranks[r].memory.t = {kMin, 0, kMax};
    run->ranks[r].memory.bytes = {1, kMax, 2};
  }
  // One op over the whole axis, and a send across it to its receive.
  run->ranks[1]
      .lane(trace::Lane::Other)
      .push(kMin, kMax, trace::OpKind::OTHER, -1, -1, 0, -1, -1, -1);
  run->ranks[0]
      .lane(trace::Lane::Send)
      .push(kMin, kMax, trace::OpKind::SEND_F, 0, 0, 0, 1, kMax, -1);
  run->ranks[1]
      .lane(trace::Lane::Recv)
      .push(kMin, kMax, trace::OpKind::RECV_F, 1, 0, 0, 0, kMax, -1);
  return run;
}

std::vector<trace::StepStats> extremeSteps() {
  trace::StepStats s;
  s.start_ns = kMin;
  s.end_ns = kMax;
  return {s};
}

// Renders, zooms, pans, hovers and selects across the whole int64 axis: UBSan (halt_on_error in
// the dev build) ends the binary at the first signed overflow, so getting through is the test.
TEST(HostileRun, ExtremeTimestampsRenderZoomAndHoverWithoutOverflow) {
  const auto run = extremeRun();
  TimelineView view;
  view.resize(1000, 300);
  view.setRun(run, extremeSteps());
  const TimeRange all = view.visibleRange();
  EXPECT_EQ(all.start, kMin);
  EXPECT_EQ(all.end, kMax);
  view.grab();
  EXPECT_GT(view.drawnItems(), 0u);
  view.setFlowsVisible(true);
  for (int k = 0; k < 80; ++k) {  // zoom in to 100 ns at both ends, pan over them
    QTest::keyClick(&view, k < 40 ? Qt::Key_W : Qt::Key_D);
    view.grab();
    const TimeRange r = view.visibleRange();
    ASSERT_LT(r.start, r.end);
    for (int x = 0; x < view.width(); x += 37)
      for (int y = 0; y < view.height(); y += 13)
        (void)view.tooltipAt(QPoint(x, y));
  }
  // Panned against either end of the axis: the view stops there.
  view.setVisibleRange({kMax - 10'000, kMax - 5'000});
  for (int k = 0; k < 10; ++k)
    QTest::keyClick(&view, Qt::Key_D);
  EXPECT_EQ(view.visibleRange().end, kMax);
  EXPECT_EQ(view.visibleRange().length(), 5'000);
  view.grab();
  view.setVisibleRange({kMin + 5'000, kMin + 10'000});
  for (int k = 0; k < 10; ++k)
    QTest::keyClick(&view, Qt::Key_A);
  EXPECT_EQ(view.visibleRange().start, kMin);
  view.grab();
  view.fit();
  QTest::keyClick(&view, Qt::Key_A);
  for (int r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < 3; ++i) {
      view.centerOn({r, trace::Lane::Compute, i});
      view.grab();
      EXPECT_EQ(view.selection().index, i);
    }
  view.centerOn({1, trace::Lane::Other, 0});
  view.setRangeBand({kMin, kMax});
  view.zoomToBand();
  view.grab();
  view.setVisibleRange({kMax - 1, kMax});
  view.grab();
  view.setVisibleRange({kMax, kMax});  // empty: becomes one nanosecond, still inside the axis
  EXPECT_LT(view.visibleRange().start, view.visibleRange().end);
  hostileShot(view, "extreme-timeline");

  MemoryView memory;
  memory.resize(1000, 200);
  memory.setRun(run);
  for (const TimeRange r : {all, TimeRange{kMin, kMin + 100}, TimeRange{kMax - 100, kMax}}) {
    memory.setVisibleRange(r);
    memory.grab();
    EXPECT_GT(memory.drawnColumns(), 0);
    QTest::mouseMove(&memory, QPoint(500, MemoryView::kHeader + 5));
  }
  hostileShot(memory, "extreme-memory");
}

// The pure pixel maths over the whole int64 axis: exact ends, no wrap (DESIGN §7.5).
TEST(HostileRun, TimeMappingCoversTheWholeAxis) {
  const TimeRange all{kMin, kMax};
  EXPECT_EQ(all.length(), kMax);
  EXPECT_EQ(pxToTime(all, 1000, 0), kMin);
  EXPECT_EQ(pxToTime(all, 1000, 1000), kMax);
  EXPECT_NEAR(pxToTime(all, 1000, 500), 0, 1 << 12);
  EXPECT_DOUBLE_EQ(timeToPx(all, 1000, kMax), 1000.0);
  EXPECT_DOUBLE_EQ(timeToPx(all, 1000, kMin), 0.0);
  const TimeRange in = zoomAround(all, 1000, 1000, 1e-18, 100, all);
  EXPECT_EQ(in.end, kMax);
  EXPECT_EQ(in.length(), 100);
  const TimeRange out = zoomAround(in, 1000, 0, 1e30, 100, all);
  EXPECT_EQ(out.start, kMin);
  EXPECT_EQ(out.end, kMax);  // the whole axis, although longer than INT64_MAX ns
  EXPECT_EQ(panByPx(in, 1000, 1e9, all).end, kMax);
  EXPECT_EQ(panByPx(in, 1000, -1e30, all).start, kMin);
  EXPECT_EQ(rangeFrom(kMax, 1).end, kMax);
  EXPECT_EQ(rangeFrom(kMax, 1).start, kMax - 1);
  EXPECT_GT(tickStep(all, 1000, 90), 0);
  EXPECT_FALSE(tickLabel(kMin, tickStep(all, 1000, 90), kMax).empty());
}

// Tooltips of ops longer than INT64_MAX ns say so instead of wrapping to a negative duration.
TEST(HostileRun, DurationsPastInt64SaturateInTheTooltips) {
  const auto run = extremeRun();
  TimelineView view;
  view.resize(1000, 300);
  view.setRun(run, extremeSteps());
  view.grab();
  const QRect box = view.opRect({0, trace::Lane::Send, 0});
  ASSERT_FALSE(box.isEmpty());
  const QString text = view.tooltipAt(box.center());
  EXPECT_TRUE(text.contains("duration 9223372036.855 s")) << text.toStdString();
  EXPECT_FALSE(text.contains("duration -")) << text.toStdString();
}

}  // namespace
}  // namespace ps::ui
