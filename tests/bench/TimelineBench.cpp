// Timeline repaint offscreen into a QImage for a 10M-op, 64-rank trace: full view, a 1% zoom and
// a 0.02% zoom (ops tens of pixels wide, labelled), median ms over repeats with the geometry
// rebuilt every time, and resident bytes per op of the loaded columns plus the lane indexes.
// Baseline, in the same run: one fillRect over the same image, the floor of any repaint.
// Goals here: <= 16 ms full, <= 4 ms zoomed, <= 48 bytes per op. `--dpr 2` paints at device
// pixel ratio 2 (an image of twice the width and height).

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
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

double median(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Paint {
  double ms, geometryMs;
};

Paint medianPaint(ps::ui::TimelineView& view, QImage& image, int repeats) {
  std::vector<double> ms, geometry;
  for (int i = 0; i < repeats; ++i) {
    view.setVisibleRange(view.visibleRange());  // invalidate the geometry cache: full rebuild
    QElapsedTimer t;
    t.start();
    QPainter p(&image);
    view.render(&p);
    p.end();
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    geometry.push_back(view.lastGeometryMs());
  }
  return {median(ms), median(geometry)};
}

// The floor: filling the same image once (appended to `ms`).
void fillMs(QImage& image, int repeats, std::vector<double>& ms) {
  for (int i = 0; i < repeats; ++i) {
    QElapsedTimer t;
    t.start();
    QPainter p(&image);
    p.fillRect(image.rect(), QColor(0xf6, 0xd5, 0xd5));
    p.end();
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const int dpr = argc == 3 && std::string_view(argv[1]) == "--dpr" ? std::atoi(argv[2]) : 1;
  if (dpr < 1 || dpr > 4) {
    std::fprintf(stderr, "usage: bench_timeline [--dpr 1..4]\n");
    return 2;
  }
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
  bytes += view.indexBytes();
  QImage image(view.size() * dpr, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(dpr);
  const int repeats = 15;
  std::vector<double> fills;
  fillMs(image, 2, fills);  // first touch of the image's pages
  fills.clear();
  fillMs(image, repeats, fills);
  const Paint full = medianPaint(view, image, repeats);
  const auto whole = view.visibleRange();
  const auto len = whole.end - whole.start;
  view.setVisibleRange({whole.start + len / 2, whole.start + len / 2 + len / 100});
  const Paint zoomed = medianPaint(view, image, repeats);
  const std::size_t zoomedItems = view.drawnItems();
  view.setVisibleRange({whole.start + len / 2, whole.start + len / 2 + len / 5000});
  const Paint deep = medianPaint(view, image, repeats);
  const double before = median(fills);
  fills.clear();
  fillMs(image, repeats, fills);
  const double after = median(fills);
  const double floor = (before + after) / 2;
  std::printf(
      "timeline 10M ops, 64 ranks, %dx%d px (dpr %d): full view %.2f ms, 1%% zoom %.2f ms, "
      "%.1f bytes/op resident (lane indexes %.2f), %zu items drawn at 1%%%s\n",
      image.width(), image.height(), dpr, full.ms, zoomed.ms, static_cast<double>(bytes) / 1e7,
      static_cast<double>(view.indexBytes()) / 1e7, zoomedItems,
      dpr == 1 ? " (goals 16 ms, 4 ms, 48 bytes/op)" : "");
  std::printf(
      "baseline: one fillRect over the image %.2f ms (%.2f before, %.2f after); full view %.2fx, "
      "1%% zoom %.2fx; 0.02%% zoom %.2f ms, %.2fx (%zu items); geometry full %.2f, 1%% %.2f, "
      "0.02%% %.2f ms\n",
      floor, before, after, full.ms / floor, zoomed.ms / floor, deep.ms, deep.ms / floor,
      view.drawnItems(), full.geometryMs, zoomed.geometryMs, deep.geometryMs);
  return 0;
}
