#pragma once
// Hand-made runs for the timeline tests: a GPipe-like pipeline of p ranks and m micro-batches
// (one step, bubbles at the ends, a send and a receive per forward hand-over), optionally with
// several model chunks per rank (interleaved placement) or Chimera's second direction; and an
// imported-looking rank with a "backward" range nested over its kernels. Also a palette switch
// and a screenshot helper (PIPESCOPE_UI_SHOTS=DIR saves PNGs for people reviewing the UI).

#include <QApplication>
#include <QColor>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QPalette>
#include <QWidget>

#include <cstdlib>
#include <memory>

#include "trace/RunTrace.h"
#include "ui/timeline/TimelineView.h"

namespace ps::ui::testruns {

using trace::Lane;
using trace::OpKind;

enum class Shape { Plain, Interleaved, Chimera };

// Forward of (stage s = chunk·p + r, mb) on rank r in slot r + mb·chunks + chunk (1 µs slots,
// 0.9 µs ops), backwards after all forwards; on Chimera odd micro-batches run up the pipeline
// (stage p-1-r on rank r).
inline std::shared_ptr<trace::RunTrace> pipeline(int p, int m, Shape shape = Shape::Plain) {
  auto run = std::make_shared<trace::RunTrace>();
  run->info.source = "sim";
  run->info.num_ranks = p;
  run->ranks.resize(p);
  const int chunks = shape == Shape::Interleaved ? 2 : 1;
  for (int r = 0; r < p; ++r) {
    run->ranks[r].info.rank = r;
    run->ranks[r].info.device = "sim";
  }
  for (int c = 0; c < chunks; ++c)
    for (int r = 0; r < p; ++r)
      run->stages.push_back({c * p + r, r, 0, 0});
  if (shape == Shape::Chimera)
    for (int s = 0; s < p; ++s)
      run->stages.push_back({s, p - 1 - s, 0, 0});
  const std::int64_t slot = 1000;
  for (int r = 0; r < p; ++r) {
    auto& compute = run->ranks[r].lane(Lane::Compute);
    auto& send = run->ranks[r].lane(Lane::Send);
    auto& recv = run->ranks[r].lane(Lane::Recv);
    for (int mb = 0; mb < m; ++mb)
      for (int c = 0; c < chunks; ++c) {
        const bool up = shape == Shape::Chimera && mb % 2 == 1;
        const int stage = up ? p - 1 - r : c * p + r;
        const std::int64_t t = (r + mb * chunks + c) * slot;
        if (r > 0) recv.push(t - slot / 2, t, OpKind::RECV_F, stage, mb, 0, r - 1, 1 << 20, -1);
        compute.push(t, t + 900, OpKind::F, stage, mb, 0, -1, -1, -1);
        if (r + 1 < p)
          send.push(t + 900, t + 1000, OpKind::SEND_F, stage, mb, 0, r + 1, 1 << 20, -1);
      }
    const std::int64_t base = (p + m * chunks) * slot;
    for (int mb = 0; mb < m; ++mb)
      for (int c = 0; c < chunks; ++c) {
        const bool up = shape == Shape::Chimera && mb % 2 == 1;
        const int stage = up ? p - 1 - r : c * p + r;
        const std::int64_t t = base + ((p - 1 - r) + mb * chunks + c) * slot;
        compute.push(t, t + 900, OpKind::B, stage, mb, 0, -1, -1, -1);
      }
  }
  return run;
}

// One imported rank (no stages): an OTHER "backward" range over three kernels, a "forward"
// range over two, and a long run of tiny kernels inside a third range (they fold per row).
inline std::shared_ptr<trace::RunTrace> nested(int ranks = 2) {
  auto run = std::make_shared<trace::RunTrace>();
  run->info.source = "nsys";
  run->ranks.resize(ranks);
  run->names = {"forward", "backward", "optimizer", "sgemm_128x64", "elementwise"};
  for (int r = 0; r < ranks; ++r) {
    run->ranks[r].info.rank = r;
    run->ranks[r].info.device = "GPU " + std::to_string(r);
    auto& other = run->ranks[r].lane(Lane::Other);
    auto& compute = run->ranks[r].lane(Lane::Compute);
    const std::int64_t o = r * 200;
    other.push(o + 1000, o + 4000, OpKind::OTHER, -1, -1, 0, -1, -1, 0);
    other.push(o + 5000, o + 11000, OpKind::OTHER, -1, -1, 0, -1, -1, 1);
    other.push(o + 12000, o + 16000, OpKind::OTHER, -1, -1, 0, -1, -1, 2);
    compute.push(o + 1100, o + 2000, OpKind::F, -1, 0, 0, -1, -1, 3);
    compute.push(o + 2500, o + 3800, OpKind::F, -1, 1, 0, -1, -1, 3);
    compute.push(o + 5200, o + 7000, OpKind::B, -1, 0, 0, -1, -1, 3);
    compute.push(o + 7200, o + 9000, OpKind::B, -1, 1, 0, -1, -1, 3);
    compute.push(o + 9100, o + 10800, OpKind::W, -1, 1, 0, -1, -1, 4);
    for (int k = 0; k < 300; ++k)
      compute.push(o + 12100 + k * 12, o + 12108 + k * 12, OpKind::OPT, -1, -1, 0, -1, -1, 4);
  }
  return run;
}

// The application palette light or dark (the view takes its colours from it).
inline void usePalette(bool dark) {
  QPalette p;
  if (dark) {
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe6));
    p.setColor(QPalette::HighlightedText, Qt::white);
  }
  QApplication::setPalette(p);
}

// The view painted into an image filled with `background` first (a colour the view never paints
// shows what it left alone).
inline QImage renderView(TimelineView& view, QColor background = Qt::transparent) {
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  image.fill(background);
  QPainter p(&image);
  view.render(&p);
  return image;
}

// Saves `w` as DIR/name.png when PIPESCOPE_UI_SHOTS=DIR is set.
inline void shot(QWidget& w, const QString& name) {
  const char* dir = std::getenv("PIPESCOPE_UI_SHOTS");
  if (!dir) return;
  QDir().mkpath(dir);
  w.grab().save(QString("%1/%2.png").arg(dir, name));
}

}  // namespace ps::ui::testruns
