#pragma once
// The bubble timeline, a thin view over a geometry builder (DESIGN §7.3-7.4): TimelineData holds
// the run as shown (indexes, depth rows, highlights, flows, idle causes), TimelineScene builds the
// primitives for the visible range and size (rebuilt once per range, size and track layout),
// buildOverlays adds the selection, flows, critical path and range band on every paint, and
// TimelinePainter walks them. This class keeps the view's state and turns input into it.
// Tracks scroll vertically (wheel), collapse (the ▾ in the label) and pin under the axis (the pin
// mark, or the label's context menu).
// Keys: W/S zoom around the pointer, A/D pan, F fit, Alt+Left / Backspace and Alt+Right zoom
// back and forward, Enter zooms to the range band, Esc clears it. Mouse: ctrl+wheel zooms, drag
// pans, drag on the axis marks a range band (double-click it to zoom), shift+drag zooms to the
// dragged range, a click selects an op.

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "ui/timeline/SceneOverlays.h"
#include "ui/timeline/TimelineData.h"
#include "ui/timeline/TimelinePainter.h"
#include "ui/timeline/TimelineScene.h"
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
  const trace::RunTrace* run() const { return data_.run(); }
  // The same, shared: background work on the run (the op search) keeps it alive.
  std::shared_ptr<const trace::RunTrace> sharedRun() const { return data_.sharedRun(); }
  TimeRange visibleRange() const { return range_; }
  // Shows `range` (not recorded in the zoom history: for syncing views).
  void setVisibleRange(TimeRange range);
  // The whole run (recorded in the zoom history).
  void fit() { zoomTo(data_.limit()); }
  // Zoom history: each zoom or fit is recorded; back and forward walk it.
  bool canZoomBack() const { return history_.canBack(); }
  bool canZoomForward() const { return history_.canForward(); }
  void zoomBack() { walkHistory(true); }
  void zoomForward() { walkHistory(false); }
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
  // Lower rows for every track (a comparison: two panes share the height of one).
  void setCompactTracks(bool compact) {
    if (compact == layout_.isCompact()) return;
    layout_.setCompact(compact);
    updateGeometry();
    invalidateLayout();
  }
  bool compactTracks() const { return layout_.isCompact(); }
  // The height that shows every track under the axis (none scrolled out), for sizing panes.
  int heightForAllTracks() const {
    return kAxis + layout_.pinnedHeight() + layout_.scrolledHeight();
  }
  int verticalOffset() const { return offset_; }
  void setVerticalOffset(int offset);
  int maxVerticalOffset() const { return layout_.maxOffset(height() - kAxis); }
  // Pixels the scrolled tracks can use (the view less the axis and the pinned tracks).
  int scrollPage() const { return std::max(0, height() - kAxis - layout_.pinnedHeight()); }
  // Ranks with at least one pixel on screen, pinned ones first, then top to bottom.
  std::vector<int> visibleRanks() const;

  // Milliseconds the last paint took, and of that the geometry rebuild (the view measures itself).
  double lastPaintMs() const { return lastPaintMs_; }
  double lastGeometryMs() const { return lastGeometryMs_; }
  // Bytes held by the lane indexes (for the bytes-per-op budget).
  std::size_t indexBytes() const { return data_.indexBytes(); }
  // How often the pixel caches were redrawn (for tests: not on every paint).
  int cacheRedraws() const { return painter_.cacheRedraws(); }
  // Items drawn in the last geometry build (for tests: bounded by about one per pixel).
  std::size_t drawnItems() const { return scene_.boxes().size(); }
  // The selected op (rank, lane, index into that rank's lane) or none; selecting a compute op
  // highlights its micro-batch on every rank and draws arrows from the ops it depends on (the
  // previous stage's op of the same kind and micro-batch, and for backward ops its own forward).
  using Selection = TimelineOp;
  void select(const Selection& selection);
  Selection selection() const { return selection_; }
  // Ops the selection depends on, and the ops that wait for it (for tests), as (rank, index in
  // the compute lane); the second are drawn as arrows in the highlight colour.
  std::vector<std::pair<int, std::size_t>> selectionDependencies() const { return deps_.in; }
  const std::vector<std::pair<int, std::size_t>>& selectionDependents() const { return deps_.out; }
  // Selects `op` and scrolls (and, when it is wider than the view, zooms) so that it shows.
  void centerOn(const Selection& op);
  // Search results: drawn emphasised, every other op dimmed; empty: no filter.
  void setHighlights(std::vector<Selection> matches) {
    data_.setHighlights(matches);
    update();
  }
  std::size_t highlightCount() const { return data_.highlightCount(); }
  // Arrows from each send to its matching receive (only those in view).
  void setFlowsVisible(bool visible);
  bool flowsVisible() const { return flowsVisible_; }
  // Why the run is idle where it is (explainRun of the run shown): each idle part of a compute
  // row is tinted or hatched by its cause and its tooltip says what it waited for; the critical
  // path, on request, is outlined op by op and joined by a line. Null clears both.
  void setExplanation(std::shared_ptr<const trace::RunExplanation> why);
  const trace::RunExplanation* explanation() const { return data_.explanation().get(); }
  void setIdleCausesVisible(bool visible) {
    causesVisible_ = visible;
    update();
  }
  bool idleCausesVisible() const { return causesVisible_; }
  void setCriticalPathVisible(bool visible) {
    if (pathVisible_ == visible) return;
    pathVisible_ = visible;
    update();
    emit criticalPathVisibleChanged(visible);
  }
  bool criticalPathVisible() const { return pathVisible_; }
  // A thin band after each op as long as its slack (how much longer it could take before its
  // step ends later).
  void setSlackVisible(bool visible) {
    slackVisible_ = visible;
    update();
  }
  bool slackVisible() const { return slackVisible_; }
  // Compare: each op's Δstart against run A (per rank, per compute op; OpDiff::kUnmatched for
  // none), tinted as a bar along the top of its box; null clears it. Cleared with a new run.
  void setOpMoves(std::shared_ptr<const TimelineData::OpMoves> moves) {
    data_.setOpMoves(std::move(moves));
    update();
  }
  const TimelineData::OpMoves* opMoves() const { return data_.opMoves(); }
  std::size_t drawnMoveBars() const { return drawn_.moveBars.size(); }
  // The Teach replay: only ops starting by `t` are drawn (the idle causes, critical path and
  // flows are off meanwhile, they would show the future); nullopt draws every op again.
  void setRevealUntil(std::optional<std::int64_t> t) {
    if (t == reveal_) return;
    reveal_ = t;
    invalidateScene();
  }
  std::optional<std::int64_t> revealUntil() const { return reveal_; }
  // Where `rank`'s track is on screen (its compute band's top and height; empty when scrolled
  // out): for what the Teach dock draws over the lanes.
  QRect trackRect(int rank) const { return run() ? scene().trackRect(rank) : QRect(); }
  // Flows, cause parts and path ops drawn in the last paint (for tests).
  std::size_t drawnFlows() const { return drawn_.flows.size(); }
  std::size_t drawnCauseParts() const { return drawn_.causes.size(); }
  std::size_t drawnPathOps() const { return drawn_.pathOps.size(); }
  std::size_t drawnSlackBands() const { return drawn_.slackBands.size(); }
  // Where an op's box is (for tests and the details panel); empty when not on screen.
  QRect opRect(const Selection& op) const;
  // The hover text at `pos` (what the tooltip shows), empty for none.
  QString tooltipAt(QPoint pos);

  static constexpr int kGutter = TimelineScene::kGutter;  // rank labels
  static constexpr int kAxis = TimelineScene::kAxis;      // time axis
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
  void criticalPathVisibleChanged(bool visible);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool event(QEvent* event) override;  // focus in and out (the frame), leave
  QSize sizeHint() const override;

 private:
  enum class Drag { None, Pan, ZoomRange, Band };

  // The scene for the current range, size and layout (built when stale; a cache, hence const).
  const TimelineScene& scene() const;
  double plotWidth() const { return std::max(1, width() - kGutter - TimelineScene::kRightMargin); }
  void invalidateScene();
  void invalidateLayout();
  void emitScroll();
  void zoomAroundPointer(double factor);
  void walkHistory(bool back);
  bool gutterClick(QPoint pos);

  TimelineData data_;
  TimeRange range_, band_{0, 0};
  ZoomHistory history_;
  TrackLayout layout_;
  int offset_ = 0;
  mutable TimelineScene scene_;
  mutable bool sceneValid_ = false;
  mutable double lastGeometryMs_ = 0;
  TimelinePainter painter_;
  SceneOverlays drawn_;  // the overlays of the last paint
  Selection selection_;
  OpDependencies deps_;  // of the selection
  bool causesVisible_ = true, pathVisible_ = false, flowsVisible_ = false, slackVisible_ = false;
  std::optional<std::int64_t> reveal_;  // the Teach replay's cutoff
  QPoint dragFrom_, pointer_;
  TimeRange dragRange_;
  int dragOffset_ = 0;
  Drag drag_ = Drag::None;
  int rangeFromX_ = 0, rangeToX_ = 0;
  bool pointerInside_ = false;
  qint64 lastWheelZoomMs_ = -1000000;
  double lastPaintMs_ = 0;
};

}  // namespace ps::ui
