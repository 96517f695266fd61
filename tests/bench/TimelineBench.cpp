// Timeline repaint offscreen into a QImage for a 10M-op, 64-rank trace: full view and a 1% zoom,
// median ms over repeats, and resident bytes per op of the loaded columns.
// Goals here: <= 16 ms full, <= 4 ms zoomed, <= 48 bytes per op.

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "trace/RunTrace.h"
#include "ui/timeline/TimelineView.h"

namespace {

std::shared_ptr<ps::trace::RunTrace> makeRun(int ranks, std::size_t opsPerRank) {
  auto run = std::make_shared<ps::trace::RunTrace>();
  run->info.num_ranks = ranks;
  run->ranks.resize(ranks);
  for (int r = 0; r < ranks; ++r) {
    auto& lane = run->ranks[r].lane(ps::trace::Lane::Compute);
    lane.reserve(opsPerRank);
    for (std::size_t k = 0; k < opsPerRank; ++k) {
      const auto t = static_cast<std::int64_t>(k) * 1000 + r * 37;
      lane.push(t, t + 700 + (k % 3) * 100, k % 2 ? ps::trace::OpKind::B : ps::trace::OpKind::F, r,
                static_cast<std::int32_t>(k % 4096), static_cast<std::int32_t>(k / 4096), -1, -1,
                -1);
    }
  }
  return run;
}

double medianPaintMs(ps::ui::TimelineView& view, int repeats) {
  std::vector<double> ms;
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  for (int i = 0; i < repeats; ++i) {
    view.setVisibleRange(view.visibleRange());  // invalidate the geometry cache: full rebuild
    QElapsedTimer t;
    t.start();
    QPainter p(&image);
    view.render(&p);
    p.end();
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int ranks = 64;
  const std::size_t perRank = 10'000'000 / ranks;
  auto run = makeRun(ranks, perRank);
  std::size_t bytes = 0;
  for (const auto& r : run->ranks) {
    const auto& l = r.lane(ps::trace::Lane::Compute);
    bytes += l.start.capacity() * 8 + l.end.capacity() * 8 + l.bytes.capacity() * 8 +
             (l.stage.capacity() + l.microbatch.capacity() + l.step.capacity() + l.peer.capacity() +
              l.name.capacity()) *
                 4 +
             l.kind.capacity();
  }
  ps::ui::TimelineView view;
  view.resize(1920, ps::ui::TimelineView::kAxis + ranks * 45 + 10);
  view.setRun(run);
  const double full = medianPaintMs(view, 7);
  const auto whole = view.visibleRange();
  const auto len = whole.end - whole.start;
  view.setVisibleRange({whole.start + len / 2, whole.start + len / 2 + len / 100});
  const double zoomed = medianPaintMs(view, 7);
  std::printf(
      "timeline 10M ops, 64 ranks, 1920 px: full view %.2f ms (goal 16), 1%% zoom %.2f ms "
      "(goal 4), %.1f bytes/op resident (goal 48), %zu items drawn at 1%%\n",
      full, zoomed, static_cast<double>(bytes) / 1e7, view.drawnItems());
  return 0;
}
