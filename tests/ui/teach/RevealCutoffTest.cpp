// Issue 34 (Teach): the replay draws only the ops that have started by the time it has reached —
// the timeline's reveal cutoff (TimelineView::setRevealUntil) leaves later ops out of the scene,
// gives them no rect (so no outline or arrow points at the future) and brings them all back when
// cleared.

#include <gtest/gtest.h>

#include <QTest>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::Lane;

std::size_t revealComputeBoxes(const TimelineView& view) {
  (void)view.opRect({0, Lane::Compute, 0});  // builds the scene for the current cutoff
  return view.drawnItems();
}

TEST(RevealCutoff, OpsStartingAfterTheCutoffAreNotDrawn) {
  // 3 ranks, 4 micro-batches: rank r's forward of mb starts at (r + mb) µs, sends 0.9 µs later,
  // receives 0.5 µs before; backwards after every forward.
  TimelineView view;
  view.resize(1200, 400);
  view.setRun(testruns::pipeline(3, 4));
  view.fit();
  const std::size_t all = revealComputeBoxes(view);
  EXPECT_EQ(all, 24u + 16u);  // 8 compute ops per rank, 8 sends and 8 receives
  view.setRevealUntil(2000);
  // Forwards with r + mb <= 2 (6), sends with r + mb <= 1 (3), receives with r + mb <= 2 (3).
  EXPECT_EQ(revealComputeBoxes(view), 12u);
  EXPECT_FALSE(view.opRect({0, Lane::Compute, 2}).isEmpty());  // rank 0's F2 starts at 2 µs
  EXPECT_TRUE(view.opRect({0, Lane::Compute, 3}).isEmpty());   // F3 at 3 µs: not yet
  EXPECT_TRUE(view.opRect({2, Lane::Compute, 1}).isEmpty());   // rank 2's F1 at 3 µs
  EXPECT_FALSE(view.trackRect(2).isEmpty());
  view.setRevealUntil(std::nullopt);
  EXPECT_EQ(revealComputeBoxes(view), all);
}

}  // namespace
}  // namespace ps::ui
