// The timeline's geometry builder without a widget (issue 33 §3): a run, a time range and a size
// in, boxes at the pixels the time mapping gives out; zooming scales widths, hit tests answer
// from the same boxes, ops outside the range are culled, overlays land on their ops.

#include <gtest/gtest.h>

#include "tests/ui/TimelineTestRuns.h"
#include "ui/timeline/SceneOverlays.h"
#include "ui/timeline/TimelineScene.h"

namespace ps::ui {
namespace {

using trace::Lane;
using trace::OpKind;
constexpr int kGutter = TimelineScene::kGutter;
constexpr int kPlot = 1000;  // plot width in px
constexpr int kWidth = kGutter + kPlot + TimelineScene::kRightMargin;

// One rank: forwards at [100, 200] and [300, 350] ns, a backward at [1500, 1600], a send at
// [200, 260].
std::shared_ptr<trace::RunTrace> smallRun() {
  auto run = std::make_shared<trace::RunTrace>();
  run->ranks.resize(1);
  auto& compute = run->ranks[0].lane(Lane::Compute);
  compute.push(100, 200, OpKind::F, 0, 0, 0, -1, -1, -1);
  compute.push(300, 350, OpKind::F, 0, 1, 0, -1, -1, -1);
  compute.push(1500, 1600, OpKind::B, 0, 0, 0, -1, -1, -1);
  run->ranks[0].lane(Lane::Send).push(200, 260, OpKind::SEND_F, 0, 0, 0, 1, 1 << 20, -1);
  return run;
}

struct Built {
  TimelineData data;
  TrackLayout layout;
  TimelineScene scene;
  Built(std::shared_ptr<trace::RunTrace> run, TimeRange range, int width = kWidth)
      : data(run, trace::analyzeRun(*run).steps) {
    const int ranks = static_cast<int>(run->ranks.size());
    layout.reset(ranks);
    for (int r = 0; r < ranks; ++r)
      layout.setDepthRows(r, data.depth(r).rows());
    scene.build(data, layout, {range, width, 400, 0});
  }
  const SceneBox* box(Lane lane, std::size_t op) const {
    for (const SceneBox& b : scene.boxes())
      if (b.lane == lane && b.count == 1 && b.op == op) return &b;
    return nullptr;
  }
};

TEST(TimelineScene, AnOpLandsAtTheTimeMappingsPixels) {
  Built b(smallRun(), {0, 1000});
  EXPECT_DOUBLE_EQ(b.scene.plotWidth(), kPlot);
  const SceneBox* f = b.box(Lane::Compute, 0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rect.left() - kGutter, 100);
  EXPECT_EQ(f->rect.right() + 1 - kGutter, 200);
  EXPECT_EQ(f->drawn.width(), 99);  // the 1-px seam between neighbours
  EXPECT_EQ(f->kind, OpKind::F);
  EXPECT_EQ(f->rect.top(), TimelineScene::kAxis + TrackLayout::kPad);
  EXPECT_EQ(f->rect.height(), TrackLayout::kRow);
  const SceneBox* send = b.box(Lane::Send, 0);
  ASSERT_NE(send, nullptr);
  EXPECT_EQ(send->rect.left() - kGutter, 200);
  EXPECT_EQ(send->rect.width(), 60);
  EXPECT_EQ(send->rect.height(), TrackLayout::kComm);
  // Ticks at least 90 px apart on round times: every 100 ns here, from 0.
  ASSERT_FALSE(b.scene.ticks().empty());
  EXPECT_EQ(b.scene.ticks()[0].time, 0);
  EXPECT_EQ(b.scene.ticks()[0].x, kGutter);
  EXPECT_EQ(b.scene.ticks()[1].x - kGutter, b.scene.tickStep() * kPlot / 1000);
}

TEST(TimelineScene, ZoomingInDoublesWidthsAndZoomingOutHalvesThem) {
  Built in(smallRun(), {0, 500});
  Built out(smallRun(), {0, 2000});
  ASSERT_NE(in.box(Lane::Compute, 0), nullptr);
  ASSERT_NE(out.box(Lane::Compute, 0), nullptr);
  EXPECT_EQ(in.box(Lane::Compute, 0)->rect.left() - kGutter, 200);
  EXPECT_EQ(in.box(Lane::Compute, 0)->rect.width(), 200);
  EXPECT_EQ(out.box(Lane::Compute, 0)->rect.left() - kGutter, 50);
  EXPECT_EQ(out.box(Lane::Compute, 0)->rect.width(), 50);
  // Panned: the same op 100 ns later on the screen's clock.
  Built panned(smallRun(), {-100, 900});
  EXPECT_EQ(panned.box(Lane::Compute, 0)->rect.left() - kGutter, 200);
}

TEST(TimelineScene, HitTestsAnswerFromTheSameBoxes) {
  Built b(smallRun(), {0, 1000});
  const int y = TimelineScene::kAxis + TrackLayout::kPad + TrackLayout::kRow / 2;
  const SceneBox* hit = b.scene.boxAt({kGutter + 150, y});
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->op, 0u);
  EXPECT_EQ(hit->lane, Lane::Compute);
  const SceneBox* second = b.scene.boxAt({kGutter + 320, y});
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->op, 1u);
  EXPECT_EQ(b.scene.boxAt({kGutter + 250, y}), nullptr);                      // between them: idle
  EXPECT_EQ(b.scene.boxAt({kGutter + 150, y + TrackLayout::kRow}), nullptr);  // below the row
  EXPECT_EQ(b.scene.opRect(b.data, {0, Lane::Compute, 0}), b.box(Lane::Compute, 0)->rect);
  ASSERT_NE(b.scene.trackAt(y), nullptr);
  EXPECT_EQ(b.scene.trackAt(y)->rank, 0);
}

TEST(TimelineScene, OpsOutsideTheRangeAreCulled) {
  Built b(smallRun(), {0, 1000});
  EXPECT_EQ(b.box(Lane::Compute, 2), nullptr);  // [1500, 1600]
  EXPECT_TRUE(b.scene.opRect(b.data, {0, Lane::Compute, 2}).isEmpty());
  EXPECT_EQ(b.scene.boxes().size(), 3u);
  Built later(smallRun(), {1000, 2000});
  ASSERT_NE(later.box(Lane::Compute, 2), nullptr);
  EXPECT_EQ(later.box(Lane::Compute, 2)->rect.left() - kGutter, 500);
  EXPECT_EQ(later.box(Lane::Compute, 0), nullptr);
}

TEST(TimelineScene, APipelinePlacesEachRankOnItsTrackAndShadesItsStep) {
  // 1 µs slots: rank r's first forward at [r µs, r µs + 900 ns]; 10 µs over 1000 px.
  Built b(testruns::pipeline(3, 4), {0, 10000});
  ASSERT_EQ(b.scene.tracks().size(), 3u);
  for (int r = 0; r < 3; ++r) {
    const QRect f = b.scene.opRect(b.data, {r, Lane::Compute, 0});
    EXPECT_EQ(f.left() - kGutter, 100 * r) << r;
    EXPECT_EQ(f.width(), 90) << r;
    EXPECT_EQ(f.top(), b.scene.tracks()[r].computeTop) << r;
  }
  // The step's span is shaded where no op covers it: rank 1 idles before its first forward.
  bool shaded = false;
  for (const SceneGround& g : b.scene.ground())
    shaded |= g.ground == Ground::Shaded && g.rect.top() == b.scene.tracks()[1].computeTop &&
              g.rect.left() >= kGutter && g.rect.right() + 1 == kGutter + 100;
  EXPECT_TRUE(shaded);
}

TEST(TimelineScene, OverlaysLandOnTheirOps) {
  auto run = testruns::pipeline(3, 4);
  Built b(run, {0, 10000});
  const OpDependencies deps = opDependencies(*run, 1, Lane::Compute, 0);
  OverlayState state;
  state.selection = {1, Lane::Compute, 0};
  state.dependencies = &deps;
  state.band = {2000, 4000};
  const SceneOverlays o = buildOverlays(b.scene, b.data, state);
  EXPECT_EQ(o.selected, b.scene.opRect(b.data, {1, Lane::Compute, 0}));
  // Micro-batch 0 on every rank: its forward and backward.
  EXPECT_EQ(o.microbatch.size(), 6u);
  // F(1,0) waits for F(0,0): one arrow from that op's end to the selection's start.
  ASSERT_EQ(o.dependencies.size(), 1u);
  EXPECT_EQ(o.dependencies[0].from.x(), b.scene.opRect(b.data, {0, Lane::Compute, 0}).right());
  EXPECT_EQ(o.dependencies[0].to.x(), o.selected.left());
  ASSERT_TRUE(o.band.has_value());
  EXPECT_EQ(o.band->rect.left() - kGutter, 200);
  EXPECT_EQ(o.band->rect.width(), 200);
  EXPECT_EQ(o.band->length, 2000);
}

}  // namespace
}  // namespace ps::ui
