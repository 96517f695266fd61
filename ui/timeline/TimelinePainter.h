#pragma once
// Paints a built timeline scene and its overlays, walking their primitives in order: the rank
// gutter and the plain strips from device-resolution caches, the background pieces, the idle
// causes, the boxes (a shade per model chunk, a hatch on the second pipeline direction, dimmed
// outside a search), the selection, flows and critical path, the boxes' labels, the axis and the
// range band. Colours come from the palette; nothing here decides where anything goes.

#include <QFont>
#include <QPalette>
#include <QStaticText>

#include <vector>

#include "ui/timeline/BoxLabels.h"
#include "ui/timeline/DevicePixelCache.h"
#include "ui/timeline/RankGutter.h"
#include "ui/timeline/SceneOverlays.h"
#include "ui/timeline/TimelineScene.h"

namespace ps::ui {

// What a paint takes from the widget.
struct PaintTarget {
  const QPalette& palette;
  const QFont& font;
  const QPaintDevice& device;  // for the caches' font resolution
  bool focus = false;          // a focus frame round the view
  std::uint64_t layoutGeneration = 0;
  int pinnedHeight = 0;
};

class TimelinePainter {
 public:
  // `scene` built for `data`, which has a run.
  void paint(QPainter& p, const TimelineScene& scene, const TimelineData& data,
             const SceneOverlays& overlays, const PaintTarget& target);
  // The view without a run: "No run loaded" over `rect`.
  static void paintEmpty(QPainter& p, const QRect& rect, const PaintTarget& target);
  // Forgets the labels laid out for the last run.
  void forgetLabels() { labels_.forget(); }
  // The boxes' labels of the last paint.
  const BoxLabels& labels() const { return labels_; }
  // How often the pixel caches were redrawn.
  int cacheRedraws() const { return gutter_.redraws() + plainCache_.redraws(); }

 private:
  struct Colours;
  static Colours colours(const QPalette& palette);
  static void fillPlain(QPainter& p, const QRect& strip, const TimelineScene& scene,
                        const Colours& c);
  void paintPlainStrips(QPainter& p, const TimelineScene& scene, const Colours& c,
                        const PaintTarget& target, int scale);
  static void paintCauses(QPainter& p, const SceneOverlays& overlays, bool dark);
  static void paintBoxes(QPainter& p, const TimelineScene& scene, const TimelineData& data,
                         const Colours& c);
  static void paintSelection(QPainter& p, const SceneOverlays& overlays, const QPalette& palette);
  static void paintFlows(QPainter& p, const SceneOverlays& overlays, const QPalette& palette);
  static void paintSlack(QPainter& p, const SceneOverlays& overlays, const QPalette& palette);
  static void paintMoves(QPainter& p, const SceneOverlays& overlays);
  static void paintCriticalPath(QPainter& p, const SceneOverlays& overlays, const QRect& plot,
                                const BoxLabels& labels);
  static void paintAxis(QPainter& p, const TimelineScene& scene, const Colours& c,
                        const QFont& font);
  static void paintBand(QPainter& p, const SceneOverlays& overlays, const TimelineScene& scene,
                        const QPalette& palette, const QFont& font);
  static void paintFocusFrame(QPainter& p, const QRect& rect, const PaintTarget& target);

  RankGutter gutter_;
  DevicePixelCache plainCache_;  // one plain strip (base and grid columns)
  BoxLabels labels_;
};

}  // namespace ps::ui
