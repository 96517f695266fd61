#pragma once
// The bubble timeline: a track per rank with a compute band and a send/recv band, ops coloured
// by kind (a lighter shade and a "mb·chunk" label per model chunk, a hatch on Chimera's second
// direction), the idle time inside each step shaded so bubbles jump out, a time axis in sensible
// units pinned on top. Geometry is built once per (range, size, layout) from per-pixel lane
// queries (each lane has a LaneIndex, built with the run; nested imported ranges get depth rows
// of their own) and painted from that cache; the background is cut around the boxes so each
// pixel is written about once; hover, selection, search highlights, flows and the range band are
// overlays (DESIGN §7.3-7.4). The rank labels and the plain background strip are cached at the
// target's device pixel ratio (DevicePixelCache) and blitted 1:1.
// Tracks scroll vertically (wheel), collapse (the ▾ in the label) and pin under the axis (the pin
// mark, or the label's context menu).
// Keys: W/S zoom around the pointer, A/D pan, F fit, Alt+Left / Backspace and Alt+Right zoom
// back and forward, Enter zooms to the range band, Esc clears it. Mouse: ctrl+wheel zooms, drag
// pans, drag on the axis marks a range band (double-click it to zoom), shift+drag zooms to the
// dragged range, a click selects an op.
// Files: TimelineView.cpp (state, API), TimelineGeometry.cpp (per-range geometry),
// TimelinePaint.cpp (painting from it), TimelineOverlays.cpp, TimelineInput.cpp.

#include <QStaticText>
#include <QWidget>

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/LaneIndex.h"
#include "trace/analysis/LaneQuery.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/analysis/RunExplanation.h"
#include "ui/timeline/DepthRows.h"
#include "ui/timeline/DevicePixelCache.h"
#include "ui/timeline/FlowMatcher.h"
#include "ui/timeline/IdleCauses.h"
#include "ui/timeline/StageChunks.h"
#include "ui/timeline/StripComposer.h"
#include "ui/timeline/TimeMapping.h"
#include "ui/timeline/TrackLayout.h"
#include "ui/timeline/ZoomHistory.h"

namespace ps::ui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);

  void setRun(std::shared_ptr<const trace::RunTrace> run);
  // The same with the run's steps already analysed (the window analyses a run once, for every
  // pane).
  void setRun(std::shared_ptr<const trace::RunTrace> run, std::vector<trace::StepStats> steps);
  // A newer read of the run on screen, grown while it runs (a live tail): a view that showed the
  // whole run follows it to its new end; a zoomed or scrolled view stays where it was.
  void growRun(std::shared_ptr<const trace::RunTrace> run, std::vector<trace::StepStats> steps);
  const trace::RunTrace* run() const { return run_.get(); }
  // The same, shared: background work on the run (the op search) keeps it alive.
  std::shared_ptr<const trace::RunTrace> sharedRun() const { return run_; }
  TimeRange visibleRange() const { return range_; }
  // Shows `range` (not recorded in the zoom history: for syncing views).
  void setVisibleRange(TimeRange range);
  // The whole run (recorded in the zoom history).
  void fit();
  // Zoom history: each zoom or fit is recorded; back and forward walk it.
  bool canZoomBack() const { return history_.canBack(); }
  bool canZoomForward() const { return history_.canForward(); }
  void zoomBack();
  void zoomForward();
  // Zooms to `range` and records the range left in the history.
  void zoomTo(TimeRange range);

  // The range band (drag on the axis): none when its length is 0. zoomToBand() zooms to it.
  TimeRange rangeBand() const { return band_; }
  bool hasRangeBand() const { return band_.end > band_.start; }
  void setRangeBand(TimeRange band);
  void zoomToBand();

  // Tracks: collapsed to a thin row, pinned under the axis (never scrolled), vertical scrolling
  // of the others (0 = the first unpinned track at the top).
  void setTrackCollapsed(int rank, bool collapsed);
  bool isTrackCollapsed(int rank) const { return layout_.isCollapsed(rank); }
  void setTrackPinned(int rank, bool pinned);
  bool isTrackPinned(int rank) const { return layout_.isPinned(rank); }
  void setAllTracksCollapsed(bool collapsed);
  int verticalOffset() const { return offset_; }
  void setVerticalOffset(int offset);
  int maxVerticalOffset() const;
  // Pixels the scrolled tracks can use (the view less the axis and the pinned tracks).
  int scrollPage() const;
  // Ranks with at least one pixel on screen, pinned ones first, then top to bottom.
  std::vector<int> visibleRanks() const;

  // Milliseconds the last paint took, and of that the geometry rebuild (the view measures itself).
  double lastPaintMs() const { return lastPaintMs_; }
  double lastGeometryMs() const { return lastGeometryMs_; }
  // Bytes held by the lane indexes (for the bytes-per-op budget).
  std::size_t indexBytes() const;
  // How often the pixel caches were redrawn (for tests: not on every paint).
  int cacheRedraws() const { return gutterCache_.redraws() + plainCache_.redraws(); }
  // Items drawn in the last geometry build (for tests: bounded by about one per pixel).
  std::size_t drawnItems() const { return drawnItems_; }
  // The selected op (rank, lane, index into that rank's lane) or none; selecting a compute op
  // highlights its micro-batch on every rank and draws arrows from the ops it depends on (the
  // previous stage's op of the same kind and micro-batch, and for backward ops its own forward).
  struct Selection {
    int rank = -1;
    trace::Lane lane = trace::Lane::Compute;
    std::size_t index = 0;
    bool valid() const { return rank >= 0; }
    bool operator==(const Selection&) const = default;
  };
  void select(const Selection& selection);
  Selection selection() const { return selection_; }
  // Ops the selection depends on, and the ops that wait for it (for tests), as (rank, index in
  // the compute lane); the second are drawn as arrows in the highlight colour.
  std::vector<std::pair<int, std::size_t>> selectionDependencies() const;
  const std::vector<std::pair<int, std::size_t>>& selectionDependents() const {
    return dependents_;
  }
  // Selects `op` and scrolls (and, when it is wider than the view, zooms) so that it shows.
  void centerOn(const Selection& op);
  // Search results: drawn emphasised, every other op dimmed; empty: no filter.
  void setHighlights(std::vector<Selection> matches);
  std::size_t highlightCount() const { return highlightCount_; }
  // Arrows from each send to its matching receive (only those in view).
  void setFlowsVisible(bool visible);
  bool flowsVisible() const { return flowsVisible_; }
  // Flows drawn in the last paint (for tests).
  std::size_t drawnFlows() const { return drawnFlows_; }
  // Why the run is idle where it is (explainRun of the run shown): each idle part of a compute
  // row is tinted or hatched by its cause and its tooltip says what it waited for; the critical
  // path, on request, is outlined op by op and joined by a line. Null clears both.
  void setExplanation(std::shared_ptr<const trace::RunExplanation> why);
  const trace::RunExplanation* explanation() const { return why_.get(); }
  void setIdleCausesVisible(bool visible);
  bool idleCausesVisible() const { return causesVisible_; }
  void setCriticalPathVisible(bool visible);
  bool criticalPathVisible() const { return pathVisible_; }
  // Cause parts and path ops drawn in the last paint (for tests).
  std::size_t drawnCauseParts() const { return drawnCauseParts_; }
  std::size_t drawnPathOps() const { return drawnPathOps_; }
  // Where an op's box is (for tests and the details panel); empty when not on screen.
  QRect opRect(const Selection& op) const;
  // The hover text at `pos` (what the tooltip shows), empty for none.
  QString tooltipAt(QPoint pos);

  static constexpr int kGutter = 96;  // rank labels
  static constexpr int kAxis = 26;    // time axis
  static constexpr int kCompute = TrackLayout::kRow;
  static constexpr int kComm = TrackLayout::kComm;
  static constexpr int kRowGap = 2 * TrackLayout::kPad;

 signals:
  void rangeChanged(ps::ui::TimeRange range);
  void selectionChanged(ps::ui::TimelineView::Selection selection);
  // The vertical scroll state changed: offset in [0, maximum], `page` px visible.
  void verticalScrollChanged(int offset, int maximum, int page);
  void zoomHistoryChanged();
  void rangeBandChanged(ps::ui::TimeRange band);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;
  QSize sizeHint() const override;

 private:
  struct Box {
    QRect rect;   // for hit tests
    QRect drawn;  // less the 1-px seam between neighbours, clipped to the plot and the track
    trace::OpKind kind;
    std::uint8_t chunk = 0, replica = 0;
    bool labelled = false;  // a compute row of an expanded track: room for a label
    int rank;
    trace::Lane lane;              // of the op (a depth row holds Compute and Other ops)
    const trace::OpColumns* cols;  // the lane the box was queried from
    std::size_t first, count;      // in `cols`
    std::size_t op;                // the single op's index in `lane` (count == 1)
  };
  struct GroundFill {
    QRect rect;
    Ground ground;
  };
  struct Colours;
  enum class Drag { None, Pan, ZoomRange, Band };

  // TimelineGeometry.cpp
  void rebuildGeometry();
  void addTrack(const Track& track, const std::vector<Span>& shaded);
  void addRow(const Track& track, int y, int h, trace::Lane lane, const trace::OpColumns& cols,
              const trace::LaneIndex& index, int depthRow, std::vector<Span>* covered);
  std::vector<Track> placeTracks() const;
  const Track* trackAt(int y) const;
  const Track* trackOf(int rank) const;
  QRect plotRect() const { return QRect(kGutter, kAxis, width() - kGutter, height() - kAxis); }

  // TimelinePaint.cpp
  Colours colours() const;
  void paintGutter(QPainter& p, const Colours& c, int scale);
  void paintPlainStrips(QPainter& p, const Colours& c, int scale);
  void fillPlain(QPainter& p, const QRect& strip, const Colours& c) const;
  void paintBoxes(QPainter& p, const Colours& c);
  void drawBoxLabels(QPainter& p);
  void drawRankLabels(QPainter& p) const;
  void drawAxis(QPainter& p, const Colours& c);
  QString rankTitle(int rank) const;
  QString rankDevice(int rank) const;
  void drawNameLabel(QPainter& p, const Box& b);
  QColor labelColour(const Box& b) const;

  // TimelineOverlays.cpp
  void drawSelection(QPainter& p);
  void drawFlows(QPainter& p);
  void drawRangeBand(QPainter& p);
  void drawFocusFrame(QPainter& p);
  bool highlighted(const Box& b) const;
  void computeDependencies();

  // TimelineExplain.cpp
  void drawIdleCauses(QPainter& p, bool dark);
  void drawCriticalPath(QPainter& p);

  // TimelineInput.cpp
  const Box* boxAt(QPoint p) const;
  void zoomAroundPointer(double factor);
  bool gutterClick(QPoint pos);
  QString gutterTooltip(QPoint pos) const;

  double plotWidth() const { return std::max(1, width() - kGutter - 8); }
  int scrollTop() const { return kAxis + layout_.pinnedHeight(); }
  void invalidateLayout();
  void emitScroll();

  std::shared_ptr<const trace::RunTrace> run_;
  std::vector<std::array<trace::LaneIndex, trace::kLaneCount>> indexes_;
  std::vector<DepthRows> depth_;  // per rank
  std::vector<trace::StepStats> steps_;
  StageChunks chunks_;
  TimeRange range_, limit_, band_{0, 0};
  ZoomHistory history_;
  TrackLayout layout_;
  int offset_ = 0;
  // Geometry, rebuilt per (range, size, layout): the tracks on screen, boxes, the background cut
  // around the compute rows' boxes, the plain strips between them, the axis ticks and their grid
  // columns.
  std::vector<Track> tracks_;
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
  // Labels ("3", "3·1") laid out once, dropped when the font changes; key mb * chunks + chunk.
  QFont textFont_;
  std::vector<QStaticText> numberText_;
  // Search highlights: per queried lane, the sorted indexes (in that lane) of the matches.
  std::unordered_map<const trace::OpColumns*, std::vector<std::size_t>> highlights_;
  std::size_t highlightCount_ = 0;
  bool filtering_ = false;  // a search is on (even one matching nothing)
  std::vector<std::pair<int, std::size_t>> dependencies_;  // of the selection
  std::vector<std::pair<int, std::size_t>> dependents_;    // ops that wait for the selection
  std::shared_ptr<const trace::RunExplanation> why_;
  IdleCauseIndex causeIndex_;
  bool causesVisible_ = true;
  bool pathVisible_ = false;
  std::size_t drawnCauseParts_ = 0, drawnPathOps_ = 0;
  bool flowsVisible_ = false;
  bool flowsBuilt_ = false;
  std::vector<Flow> flows_;
  std::int64_t longestFlow_ = 0;
  std::size_t drawnFlows_ = 0;
  QPoint dragFrom_;
  TimeRange dragRange_;
  int dragOffset_ = 0;
  Drag drag_ = Drag::None;
  int rangeFromX_ = 0, rangeToX_ = 0;
  QPoint pointer_;
  bool pointerInside_ = false;
  qint64 lastWheelZoomMs_ = -1000000;
  Selection selection_;
  double lastPaintMs_ = 0, lastGeometryMs_ = 0;
  std::size_t drawnItems_ = 0;
};

}  // namespace ps::ui
