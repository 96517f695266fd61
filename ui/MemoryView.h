#pragma once
// Memory in use per rank over time, on the timeline's time axis and zoom: one counter track per
// rank (as in Nsight Systems and Perfetto), drawn as min/max per pixel column (DESIGN §7.3),
// scaled to the largest peak, with each rank's peak-against-capacity bar in its gutter. Tracks keep
// a readable minimum height and scroll vertically (wheel or the thin bar in the right margin, which
// keeps the plot aligned with the timeline's); the pointer shows the value under it. A run without
// memory samples, or whose samples are all 0 B (no sizes known), says so instead of drawing an
// empty scale. The app scrolls it with the timeline above (showRanksFrom: the timeline's first rank
// on top).

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "trace/RunTrace.h"
#include "ui/timeline/TimeMapping.h"

class QScrollBar;

namespace ps::ui {

// What the memory track of one rank holds at time t: pure, for the hover readout.
struct MemoryReadout {
  int rank = -1;
  std::int64_t t = 0;
  std::optional<std::int64_t> bytes;  // in use at t; none before the rank's first sample
  std::int64_t peak = 0;              // the rank's peak over the whole run
  std::optional<std::int64_t> capacity;
};
// The value in force at t is that of the last sample at or before t (samples hold until the
// next one). A rank out of range gives a readout with rank -1.
MemoryReadout memoryReadout(const trace::RunTrace& run, int rank, std::int64_t t);
// "rank 3 · 1.250 ms · 1.20 GiB in use · peak 2.00 GiB of 16.00 GiB".
QString memoryReadoutText(const MemoryReadout& readout);

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(QWidget* parent = nullptr);
  void setRun(std::shared_ptr<const trace::RunTrace> run);
  void setVisibleRange(ps::ui::TimeRange range);
  // Columns with data drawn in the last paint (tests: the view drew something).
  int drawnColumns() const { return drawnColumns_; }
  // A rank's peak memory over the whole run as a share of its capacity (or, without a known
  // capacity, of the run's largest peak): the bar drawn in the rank's gutter; > 1 is over.
  double peakShare(int rank) const;

  // Layout, for tests and for the app: a track's height (at least kMinTrack-ish, the font's
  // height plus padding), its label and peak bar in the gutter, the first pixel row of tracks.
  int trackHeight() const;
  QRect labelRect(int rank) const;
  QRect peakBarRect(int rank) const;
  static constexpr int kHeader = 18;
  // Vertical scrolling: pixels scrolled, and the largest offset (0 when every track fits).
  int scrollOffset() const { return scroll_; }
  int maxScroll() const;
  void scrollTo(int offset);
  // Scrolls so that `rank`'s track is in view.
  void ensureRankVisible(int rank);
  // Scrolls so that `rank`'s track is the first one (as far as the tracks below fill the view).
  void showRanksFrom(int rank);
  // The rank whose track is under a widget position (-1 for none) and what it holds there.
  int rankAt(QPoint pos) const;
  std::optional<MemoryReadout> readoutAt(QPoint pos) const;
  // The readout painted under the pointer, empty when the pointer is not over a track.
  QString hoverText() const { return hoverText_; }
  // The note drawn instead of tracks ("no memory samples in this run"), empty when tracks show.
  QString note() const;
  // Bytes at the top of every track: the run's largest peak (capacity is the gutter's bar).
  std::int64_t scale() const { return scale_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;
  bool event(QEvent* event) override;
  QSize sizeHint() const override { return {900, 160}; }

 private:
  int plotWidth() const;
  int trackTop(int rank) const { return kHeader + rank * trackHeight() - scroll_; }
  bool hasSamples() const;
  void updateScrollBar();
  void setScroll(int offset);  // the readout under a still pointer follows the tracks
  void styleScrollBar();
  void paintTrack(QPainter& p, int rank);
  void paintHover(QPainter& p);

  std::shared_ptr<const trace::RunTrace> run_;
  // Per rank, computed once in setRun: every paint and hover asks per visible rank, and a loop
  // over all ranks there made a million-rank run quadratic (issue 12 case 7).
  std::vector<std::int64_t> peaks_;
  std::int64_t largestPeak_ = 0;
  bool hasSamples_ = false;
  TimeRange range_;
  std::int64_t scale_ = 1;
  int drawnColumns_ = 0;
  int scroll_ = 0;
  QScrollBar* bar_ = nullptr;
  std::optional<QPoint> hover_;
  QString hoverText_;
};

}  // namespace ps::ui
