// The memory pane: one readable counter track per rank at 8, 32 and 64 ranks (scrolling past
// what fits), a note instead of an empty scale for runs without memory samples, and the value
// under the pointer. Screenshots with PIPESCOPE_UI_SHOTS=DIR.

#include <gtest/gtest.h>

#include <QApplication>
#include <QMouseEvent>
#include <QWheelEvent>

#include <cstdlib>

#include "ui/DarkPalette.h"
#include "ui/MemoryView.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// `ranks` ranks, each a sawtooth of 10 steps over [0, 1000) ns rising to (rank + 1) MiB.
std::shared_ptr<trace::RunTrace> sawtooth(int ranks) {
  auto run = std::make_shared<trace::RunTrace>();
  run->ranks.resize(ranks);
  for (int r = 0; r < ranks; ++r) {
    run->ranks[r].info.rank = r;
    run->ranks[r].info.memory_capacity_bytes = std::int64_t{80} << 20;
    for (int i = 0; i < 10; ++i) {
      run->ranks[r].memory.t.push_back(i * 100);
      run->ranks[r].memory.bytes.push_back((std::int64_t{r} + 1) * (i % 5 + 1) * (1 << 20) / 5);
    }
  }
  return run;
}

void memoryShot(QWidget& w, const QString& name) {
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS")) w.grab().save(QString(dir) + "/" + name);
}

void hover(QWidget& w, QPoint pos) {
  QMouseEvent move(QEvent::MouseMove, QPointF(pos), w.mapToGlobal(QPointF(pos)), Qt::NoButton,
                   Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &move);
}

TEST(MemoryReadout, ValueInForceIsTheLastSampleAtOrBeforeTheTime) {
  auto run = sawtooth(2);
  run->ranks[1].memory.t = {10, 20, 30};
  run->ranks[1].memory.bytes = {100, 300, 50};
  EXPECT_FALSE(memoryReadout(*run, 1, 5).bytes);  // before the first sample
  EXPECT_EQ(memoryReadout(*run, 1, 10).bytes, 100);
  EXPECT_EQ(memoryReadout(*run, 1, 25).bytes, 300);
  EXPECT_EQ(memoryReadout(*run, 1, 1'000'000).bytes, 50);
  const MemoryReadout m = memoryReadout(*run, 1, 25);
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.t, 25);
  EXPECT_EQ(m.peak, 300);
  EXPECT_EQ(m.capacity, std::int64_t{80} << 20);
  EXPECT_EQ(memoryReadout(*run, 2, 25).rank, -1);
  EXPECT_EQ(memoryReadout(*run, -1, 25).rank, -1);
  EXPECT_EQ(memoryReadoutText(m).toStdString(),
            "rank 1 · 25 ns · 300 B in use · peak 300 B of 80.00 MiB");
  EXPECT_TRUE(memoryReadoutText(memoryReadout(*run, 1, 5)).contains("no sample yet"));
  EXPECT_TRUE(memoryReadoutText(MemoryReadout{}).isEmpty());
}

class MemoryViewRanks : public ::testing::TestWithParam<int> {};

// Before: at 8 ranks in 160 px the bands were 17 px, the label and the peak bar shared them and
// neighbouring labels touched; at 32 and 64 they were painted over each other.
TEST_P(MemoryViewRanks, LabelsKeepTheirOwnLineAndTracksScroll) {
  const int ranks = GetParam();
  MemoryView view;
  view.resize(900, 160);
  view.setRun(sawtooth(ranks));
  view.setVisibleRange({0, 1000});
  const int fh = view.fontMetrics().height();
  EXPECT_GE(view.trackHeight(), fh + 8);
  for (int r = 0; r < ranks; ++r) {
    const QRect label = view.labelRect(r), bar = view.peakBarRect(r);
    EXPECT_GE(label.height(), fh) << r;
    EXPECT_FALSE(label.intersects(bar)) << r;
    EXPECT_GT(bar.width(), 0) << r;
    EXPECT_LE(bar.right(), TimelineView::kGutter) << "the bar stays in the gutter";
    if (r + 1 < ranks) {
      EXPECT_LT(label.bottom(), view.labelRect(r + 1).top()) << r;
    }
  }
  // 8 tracks of one text line do not fit in 142 px: the view scrolls, by wheel too.
  EXPECT_GT(view.maxScroll(), 0);
  QWheelEvent wheel(QPointF(300, 80), view.mapToGlobal(QPointF(300, 80)), {}, QPoint(0, -120),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  EXPECT_EQ(view.scrollOffset(), std::min(view.trackHeight(), view.maxScroll()));
  view.scrollTo(1 << 20);
  EXPECT_EQ(view.scrollOffset(), view.maxScroll());
  EXPECT_EQ(view.rankAt(QPoint(300, view.height() - 2)), ranks - 1);
  view.ensureRankVisible(0);
  EXPECT_EQ(view.scrollOffset(), 0);
  EXPECT_EQ(view.rankAt(QPoint(300, MemoryView::kHeader + 1)), 0);
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);
  EXPECT_GT(view.drawnColumns(), 0);
  memoryShot(view, QString("memory-%1-light.png").arg(ranks));
  view.setPalette(darkPalette());
  hover(view, QPoint(TimelineView::kGutter + 300, MemoryView::kHeader + view.trackHeight() + 4));
  memoryShot(view, QString("memory-%1-dark-hover.png").arg(ranks));
}

INSTANTIATE_TEST_SUITE_P(Ranks, MemoryViewRanks, ::testing::Values(8, 32, 64));

TEST(MemoryView, FewRanksFillTheHeightWithoutScrolling) {
  MemoryView view;
  view.resize(900, 160);
  view.setRun(sawtooth(2));
  EXPECT_EQ(view.trackHeight(), (160 - MemoryView::kHeader) / 2);
  EXPECT_EQ(view.maxScroll(), 0);
}

// Before: an imported run without memory events showed "memory in use (scale 1 B)" and empty
// bands, which reads as "no memory used".
TEST(MemoryView, RunWithoutSamplesSaysSoInsteadOfAnEmptyScale) {
  auto run = std::make_shared<trace::RunTrace>();
  run->ranks.resize(4);
  MemoryView view;
  view.resize(900, 160);
  view.setRun(run);
  view.setVisibleRange({0, 1000});
  EXPECT_EQ(view.note().toStdString(), "no memory samples in this run");
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);
  EXPECT_EQ(view.drawnColumns(), 0);
  EXPECT_EQ(view.maxScroll(), 0);
  EXPECT_EQ(view.rankAt(QPoint(300, 60)), -1);
  memoryShot(view, "memory-no-samples-light.png");
  view.setPalette(darkPalette());
  memoryShot(view, "memory-no-samples-dark.png");
  view.setRun(sawtooth(4));
  EXPECT_TRUE(view.note().isEmpty());
}

TEST(MemoryView, HoverReadsOutTheValueAndFollowsTheVisibleRange) {
  MemoryView view;
  view.resize(600 + TimelineView::kGutter + 8, 200);  // a 600 px plot
  view.setRun(sawtooth(2));
  view.setVisibleRange({0, 600});  // 1 ns per pixel
  const int y = MemoryView::kHeader + view.trackHeight() + view.trackHeight() / 2;  // rank 1
  hover(view, QPoint(TimelineView::kGutter + 250, y));
  // t = 250 ns: rank 1's sample at 200 ns, 2 × 3/5 MiB.
  const auto m = view.readoutAt(QPoint(TimelineView::kGutter + 250, y));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rank, 1);
  EXPECT_EQ(m->t, 250);
  EXPECT_EQ(m->bytes, 2 * 3 * (1 << 20) / 5);
  EXPECT_EQ(m->peak, 2 * (1 << 20));
  EXPECT_EQ(view.hoverText(), memoryReadoutText(*m));
  EXPECT_TRUE(view.hoverText().startsWith("rank 1 · 250 ns · 1.20 MiB in use · peak 2.00 MiB"))
      << view.hoverText().toStdString();
  // The timeline zooms: the same pixel is now another time, and the readout follows.
  view.setVisibleRange({0, 6000});
  EXPECT_TRUE(view.hoverText().startsWith("rank 1 · 2.500 µs")) << view.hoverText().toStdString();
  // Over the gutter there is no time.
  EXPECT_FALSE(view.readoutAt(QPoint(10, y)));
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(&view, &leave);
  EXPECT_TRUE(view.hoverText().isEmpty());
}

// A GPU run small against its capacity still fills its tracks: the scale is the largest peak
// (seen on the H200 fixture: 216 MiB of 139.8 GiB drew flat under "scale 17.48 GiB").
TEST(MemoryViewScale, IsTheLargestPeakEvenFarBelowCapacity) {
  auto run = sawtooth(3);  // peaks 1, 2 and 3 MiB
  for (auto& r : run->ranks)
    r.info.memory_capacity_bytes = std::int64_t{140} << 30;
  MemoryView view;
  view.setRun(run);
  EXPECT_EQ(view.scale(), std::int64_t{3} << 20);
}

}  // namespace
}  // namespace ps::ui
