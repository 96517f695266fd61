// The memory pane beside a many-rank timeline (issue 34 item 17): its tracks scroll with the
// timeline's (timeline at rank 39, memory at rank 39, not 0); the readout under a still pointer
// names the rank now under it after a scroll; a run whose samples carry no sizes says so instead
// of "scale 1 B". PIPESCOPE_UI_SHOTS=DIR saves the area.

#include <gtest/gtest.h>

#include <QApplication>
#include <QMouseEvent>
#include <QTest>

#include <cstdlib>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/LoadedRun.h"
#include "ui/MemoryView.h"
#include "ui/TimelineArea.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

// testruns::pipeline with a memory sawtooth on each rank rising to (rank + 1) MiB (or 0 B).
std::shared_ptr<trace::RunTrace> memoryFollowsRun(int ranks, bool sized = true) {
  auto run = testruns::pipeline(ranks, 4);
  for (int r = 0; r < ranks; ++r)
    for (int i = 0; i < 10; ++i) {
      run->ranks[r].memory.t.push_back(i * 1000);
      run->ranks[r].memory.bytes.push_back(sized ? (r + 1) * (i % 5 + 1) * (1 << 20) / 5 : 0);
    }
  return run;
}

int firstMemoryRank(const MemoryView& memory) {
  return memory.rankAt(QPoint(TimelineView::kGutter + 50, MemoryView::kHeader + 1));
}

void memoryFollowsHover(QWidget& w, QPoint pos) {
  QMouseEvent move(QEvent::MouseMove, QPointF(pos), w.mapToGlobal(QPointF(pos)), Qt::NoButton,
                   Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &move);
}

TEST(MemoryFollowsTimeline, TheMemoryTracksScrollWithTheTimeline) {
  TimelineArea area;
  area.resize(1100, 700);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  area.showRun(analyseInMemory({}, memoryFollowsRun(64)));
  QTest::qWait(20);
  TimelineView* timeline = area.timeline();
  MemoryView* memory = area.memory();
  ASSERT_GT(memory->maxScroll(), 0) << "64 memory tracks do not all fit";
  EXPECT_EQ(firstMemoryRank(*memory), 0);
  // The timeline scrolled to rank 39 at its top: the memory pane shows rank 39 at its top.
  timeline->setVerticalOffset(
      39 * (TimelineView::kCompute + 2 * TimelineView::kComm + TimelineView::kRowGap));
  ASSERT_EQ(timeline->visibleRanks().front(), 39);
  EXPECT_EQ(firstMemoryRank(*memory), 39);
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    area.grab().save(QString(dir) + "/memory-follows-rank39.png");
  // And back up.
  timeline->setVerticalOffset(0);
  EXPECT_EQ(firstMemoryRank(*memory), 0);
}

TEST(MemoryFollowsTimeline, TheReadoutNamesTheRankUnderTheStillPointerAfterAScroll) {
  MemoryView view;
  view.resize(900, 200);
  view.setRun(memoryFollowsRun(48));
  view.setVisibleRange({0, 10000});
  const QPoint pointer(TimelineView::kGutter + 100, MemoryView::kHeader + view.trackHeight() / 2);
  memoryFollowsHover(view, pointer);
  EXPECT_TRUE(view.hoverText().startsWith("rank 0 ")) << view.hoverText().toStdString();
  view.showRanksFrom(20);  // the timeline above scrolled; the pointer did not move
  EXPECT_EQ(view.rankAt(pointer), 20);
  EXPECT_TRUE(view.hoverText().startsWith("rank 20 ")) << view.hoverText().toStdString();
}

TEST(MemoryFollowsTimeline, SamplesWithoutSizesSaySoInsteadOfScaleOneByte) {
  MemoryView view;
  view.resize(900, 160);
  view.setRun(memoryFollowsRun(48, false));
  view.setVisibleRange({0, 10000});
  EXPECT_EQ(view.note().toStdString(), "no memory sizes in this run (every sample is 0 B)");
  QImage image(view.size(), QImage::Format_ARGB32);
  view.render(&image);
  EXPECT_EQ(view.drawnColumns(), 0);
  EXPECT_EQ(view.rankAt(QPoint(300, 60)), -1);
  EXPECT_EQ(view.maxScroll(), 0) << "a note has no tracks to scroll";
  if (const char* dir = std::getenv("PIPESCOPE_UI_SHOTS"))
    image.save(QString(dir) + "/memory-no-sizes.png");
}

}  // namespace
}  // namespace ps::ui
