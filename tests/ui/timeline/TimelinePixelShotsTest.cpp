// Pixel shots of the timeline with every overlay on, for comparing a refactor's output pixel for
// pixel (PIPESCOPE_UI_SHOTS=DIR saves DIR/pixels-*.png; compare two DIRs with ImageMagick's
// `compare -metric AE`): idle causes and the critical path, a selection with its dependency
// arrows, flows, a range band, search highlights, pinned and collapsed tracks, nested rows, a
// zoomed range, light and dark, and a 2x device pixel ratio.

#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>

#include "tests/ui/TimelineTestRuns.h"
#include "trace/analysis/RunExplanation.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui {
namespace {

using trace::Lane;

void save(TimelineView& view, const QString& name) {
  testruns::shot(view, name);
  const char* dir = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!dir) return;
  QImage twice(view.size() * 2, QImage::Format_ARGB32_Premultiplied);
  twice.setDevicePixelRatio(2);
  twice.fill(Qt::magenta);
  QPainter p(&twice);
  view.render(&p);
  p.end();
  twice.save(QString("%1/%2-2x.png").arg(dir, name));
}

TEST(TimelinePixelShots, EveryOverlay) {
  if (!std::getenv("PIPESCOPE_UI_SHOTS")) GTEST_SKIP() << "PIPESCOPE_UI_SHOTS not set";
  for (bool dark : {false, true}) {
    testruns::usePalette(dark);
    const QString tone = dark ? "dark" : "light";
    auto run = testruns::pipeline(4, 8, testruns::Shape::Chimera);
    TimelineView view;
    view.resize(1100, 360);
    view.setRun(run);
    view.setExplanation(std::make_shared<trace::RunExplanation>(trace::explainRun(*run)));
    view.setCriticalPathVisible(true);
    view.setFlowsVisible(true);
    view.select({1, Lane::Compute, 3});
    view.setRangeBand({4000, 9000});
    save(view, "pixels-overlays-" + tone);

    // Zoomed in, a search on, a track pinned and another collapsed.
    view.setVisibleRange({2500, 14500});
    view.setHighlights({{0, Lane::Compute, 2}, {2, Lane::Compute, 5}, {3, Lane::Send, 1}});
    view.setTrackPinned(2, true);
    view.setTrackCollapsed(1, true);
    view.setIdleCausesVisible(false);
    save(view, "pixels-zoomed-" + tone);

    auto interleaved = testruns::pipeline(4, 8, testruns::Shape::Interleaved);
    view.setRun(interleaved);
    view.select({2, Lane::Compute, 9});
    view.setVisibleRange({1000, 30000});
    save(view, "pixels-interleaved-" + tone);

    auto nested = testruns::nested(3);
    view.setRun(nested);
    view.select({1, Lane::Compute, 2});
    view.setExplanation(std::make_shared<trace::RunExplanation>(trace::explainRun(*nested)));
    save(view, "pixels-nested-" + tone);
    view.setVisibleRange({11900, 13500});
    save(view, "pixels-nested-zoomed-" + tone);
  }
  testruns::usePalette(false);
}

}  // namespace
}  // namespace ps::ui
