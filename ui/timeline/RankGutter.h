#pragma once
// The timeline's rank labels on the left: per track on screen its title ("rank 3 · GPU 3", the
// device on a second line when it does not fit), a disclosure mark (▾ expanded, ▸ collapsed) and
// a pin mark; collapsed tracks' labels thin out to those that fit. Painted from a cache at the
// target's device pixel ratio (DevicePixelCache): it changes only with the run, the font, the
// palette, the height and the tracks' layout and scroll, never with the time range.

#include <QFont>
#include <QPalette>
#include <QString>

#include <cstdint>

#include "trace/RunTrace.h"
#include "ui/timeline/DevicePixelCache.h"
#include "ui/timeline/TimelineScene.h"

namespace ps::ui {

class RankGutter {
 public:
  static constexpr int kMarkWidth = 15;  // the disclosure mark on the left, the pin on the right
  enum class Mark { None, Disclosure, Pin };
  // The mark at x in the gutter.
  static Mark markAt(int x);
  // The hover text of track `t`'s label.
  static QString tooltip(const trace::RunTrace& run, const Track& t);

  // Paints the gutter of `scene` (built for `run`), blitted from the cache at `scale` (0: drawn
  // directly). `layoutGeneration` and `offset` say when the tracks moved.
  void paint(QPainter& p, const TimelineScene& scene, const trace::RunTrace& run,
             std::uint64_t layoutGeneration, const QPalette& palette, const QFont& font,
             const QPaintDevice& like, int scale);
  int redraws() const { return cache_.redraws(); }

 private:
  static void drawLabels(QPainter& p, const TimelineScene& scene, const trace::RunTrace& run,
                         const QPalette& palette, const QFont& font);
  DevicePixelCache cache_;
};

}  // namespace ps::ui
