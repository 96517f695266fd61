// Hover texts (issue 11, defect 12): an idle gap inside a step says rank, from–to, how long and
// what the rank waits for next; a send/recv mark says kind, bytes, peer, duration and achieved
// bandwidth. The texts are pure functions; the view shows them where the pointer is.

#include <gtest/gtest.h>

#include "tests/ui/TimelineTestRuns.h"
#include "trace/Units.h"
#include "trace/analysis/RunAnalysis.h"
#include "ui/timeline/TimelineTooltips.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using testruns::pipeline;
using trace::Lane;

TEST(TimelineHover, IdleGapBetweenTwoOpsNamesTheNextOp) {
  auto run = pipeline(4, 4);
  const auto steps = trace::analyzeRun(*run).steps;
  ASSERT_EQ(steps.size(), 1u);
  // Rank 0 idles between its last forward (ends at 3900) and its first backward.
  const auto& lane = run->ranks[0].lane(Lane::Compute);
  ASSERT_EQ(lane.kind[4], trace::OpKind::B);
  const std::int64_t t = lane.end[3] + 100;
  const auto gap = idleGapAt(*run, 0, steps, t);
  ASSERT_TRUE(gap.has_value());
  EXPECT_EQ(gap->from, lane.end[3]);
  EXPECT_EQ(gap->to, lane.start[4]);
  ASSERT_TRUE(gap->next.has_value());
  EXPECT_EQ(*gap->next, 4u);
  const QString text = gapTooltip(*run, *gap, StageChunks(run->stages));
  EXPECT_TRUE(text.contains("idle")) << text.toStdString();
  EXPECT_TRUE(text.contains("rank 0"));
  EXPECT_TRUE(text.contains("waits for B micro-batch 0")) << text.toStdString();
  EXPECT_TRUE(text.contains(QString::fromStdString(trace::formatDuration(gap->to - gap->from))));
}

TEST(TimelineHover, NoGapInsideAnOpNorOutsideTheSteps) {
  auto run = pipeline(4, 4);
  const auto steps = trace::analyzeRun(*run).steps;
  const auto& lane = run->ranks[0].lane(Lane::Compute);
  EXPECT_FALSE(idleGapAt(*run, 0, steps, lane.start[1] + 10).has_value());
  EXPECT_FALSE(idleGapAt(*run, 0, steps, steps[0].end_ns + 10).has_value());
  EXPECT_FALSE(idleGapAt(*run, 99, steps, lane.end[3] + 100).has_value()) << "no such rank";
}

TEST(TimelineHover, SendMarkShowsBytesPeerAndBandwidth) {
  auto run = pipeline(4, 4);
  // 1 MiB in 100 ns: 10.49 TB/s.
  const QString text = commTooltip(*run, 1, Lane::Send, 0);
  EXPECT_TRUE(text.contains("SEND_F")) << text.toStdString();
  EXPECT_TRUE(text.contains("rank 1 → rank 2"));
  EXPECT_TRUE(text.contains("1.00 MiB"));
  EXPECT_TRUE(text.contains("10.49 TB/s")) << text.toStdString();
  EXPECT_TRUE(text.contains("duration 100 ns"));
  const QString recv = commTooltip(*run, 2, Lane::Recv, 0);
  EXPECT_TRUE(recv.contains("rank 2 ← rank 1")) << recv.toStdString();
  EXPECT_EQ(formatBandwidth(12.5e9), "12.50 GB/s");
}

TEST(TimelineHover, TheViewShowsGapAndCommTextsUnderThePointer) {
  TimelineView view;
  view.resize(1200, 300);
  auto run = pipeline(4, 4);
  view.setRun(run);
  const auto& lane = run->ranks[0].lane(Lane::Compute);
  const double w = view.width() - TimelineView::kGutter - 8;
  const auto xOf = [&](std::int64_t t) {
    return TimelineView::kGutter + static_cast<int>(timeToPx(view.visibleRange(), w, t));
  };
  const int y0 = TimelineView::kAxis + 4 + TimelineView::kCompute / 2;
  const QString gap = view.tooltipAt({xOf((lane.end[3] + lane.start[4]) / 2), y0});
  EXPECT_TRUE(gap.startsWith("idle")) << gap.toStdString();
  const QRect send = view.opRect({1, Lane::Send, 0});
  ASSERT_FALSE(send.isEmpty());
  const QString comm = view.tooltipAt(send.center());
  EXPECT_TRUE(comm.contains("TB/s")) << comm.toStdString();
}

}  // namespace
}  // namespace ps::ui
