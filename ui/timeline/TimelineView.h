#pragma once
// The bubble timeline: a row per rank with a compute lane and a communication lane, ops coloured
// by kind, the idle time inside each step shaded so bubbles jump out, a time axis in sensible
// units. Geometry is built once per (range, size) from per-pixel lane queries (each lane has a
// LaneIndex, built with the run) and painted from that cache; the background is cut around the
// boxes so each pixel is written about once; hover and selection are overlays (DESIGN §7.3-7.4).
// Two pixel caches, the rank labels and the plain background strip, are drawn at the target's
// device pixel ratio (DevicePixelCache) and blitted 1:1.
// Keys: W/S zoom, A/D pan, F fit; ctrl+wheel zooms around the mouse, drag pans, shift+drag
// zooms to the selected range, a click selects an op.

#include <QStaticText>
#include <QWidget>

#include <array>
#include <memory>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/LaneIndex.h"
#include "trace/analysis/LaneQuery.h"
#include "trace/analysis/RunAnalysis.h"
#include "ui/timeline/DevicePixelCache.h"
#include "ui/timeline/StripComposer.h"
#include "ui/timeline/TimeMapping.h"

namespace ps::ui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);

  void setRun(std::shared_ptr<const trace::RunTrace> run);
  const trace::RunTrace* run() const { return run_.get(); }
  TimeRange visibleRange() const { return range_; }
  void setVisibleRange(TimeRange range);
  void fit();
  // Milliseconds the last paint took, and of that the geometry rebuild (the view measures itself).
  double lastPaintMs() const { return lastPaintMs_; }
  double lastGeometryMs() const { return lastGeometryMs_; }
  // Bytes held by the lane indexes (for the bytes-per-op budget).
  std::size_t indexBytes() const;
  // How often the pixel caches were redrawn (for tests: not on every paint).
  int cacheRedraws() const { return gutterCache_.redraws() + plainCache_.redraws(); }
  // Items drawn in the last geometry build (for tests: bounded by about one per pixel).
  std::size_t drawnItems() const { return drawnItems_; }
  // The selected op (rank, lane, index) or none; selecting highlights its micro-batch on every
  // rank and draws arrows from the ops it depends on (the previous stage's op of the same kind
  // and micro-batch, and for backward ops its own forward).
  struct Selection {
    int rank = -1;
    trace::Lane lane = trace::Lane::Compute;
    std::size_t index = 0;
    bool valid() const { return rank >= 0; }
  };
  void select(const Selection& selection);
  Selection selection() const { return selection_; }
  // Ops the selection depends on (for tests), as (rank, index in the compute lane).
  std::vector<std::pair<int, std::size_t>> selectionDependencies() const;

  static constexpr int kGutter = 96;   // rank labels
  static constexpr int kAxis = 26;     // time axis
  static constexpr int kCompute = 24;  // compute lane height
  static constexpr int kComm = 7;      // send/recv lane height
  static constexpr int kRowGap = 8;

 signals:
  void rangeChanged(ps::ui::TimeRange range);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  QSize sizeHint() const override;

 private:
  struct Box {
    QRect rect;   // for hit tests
    QRect drawn;  // less the 1-px seam between neighbours, clipped to the plot
    trace::OpKind kind;
    int rank;
    trace::Lane lane;
    std::size_t first, count;
  };
  struct GroundFill {
    QRect rect;
    Ground ground;
  };
  struct Colours;
  void rebuildGeometry();
  void addBand(int rank, int top, const std::vector<Span>& shaded);
  Colours colours() const;
  void paintGutter(QPainter& p, const Colours& c, int scale);
  void paintPlainStrips(QPainter& p, const Colours& c, int scale);
  void fillPlain(QPainter& p, const QRect& strip, const Colours& c) const;
  void drawBoxLabels(QPainter& p);
  void drawRankLabels(QPainter& p) const;
  double plotWidth() const { return std::max(1, width() - kGutter - 8); }
  int rowTop(int rank) const { return kAxis + rank * (kCompute + 2 * kComm + kRowGap) + 4; }
  const Box* boxAt(QPoint p) const;
  void drawSelection(QPainter& p);
  QRect opRect(int rank, std::size_t index) const;
  QString tooltipFor(const Box& box) const;
  void drawAxis(QPainter& p, const QColor& fg);

  std::shared_ptr<const trace::RunTrace> run_;
  std::vector<std::array<trace::LaneIndex, trace::kLaneCount>> indexes_;
  std::vector<trace::StepStats> steps_;
  TimeRange range_, limit_;
  // Geometry, rebuilt per (range, size): boxes, the background cut around the compute lanes'
  // boxes, the plain strips between them, the axis ticks and their grid columns.
  std::vector<Box> boxes_;
  std::vector<GroundFill> ground_;
  std::vector<QRect> plainStrips_;
  std::vector<std::int64_t> ticks_;
  std::vector<int> gridX_;
  std::int64_t tickStep_ = 1;
  bool geometryValid_ = false;
  std::uint64_t generation_ = 0;
  // The rank labels' gutter and one plain strip (base and grid columns), at device resolution.
  DevicePixelCache gutterCache_, plainCache_;
  // Micro-batch numbers laid out once, dropped when the font changes.
  QFont textFont_;
  std::vector<QStaticText> numberText_;
  QPoint dragFrom_;
  TimeRange dragRange_;
  bool dragging_ = false;
  bool rangeSelecting_ = false;
  int rangeFromX_ = 0, rangeToX_ = 0;
  Selection selection_;
  double lastPaintMs_ = 0, lastGeometryMs_ = 0;
  std::size_t drawnItems_ = 0;
};

}  // namespace ps::ui
