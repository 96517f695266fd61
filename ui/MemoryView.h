#pragma once
// Memory in use per rank over time, on the timeline's time axis and zoom: one band per rank,
// drawn as min/max per pixel column (DESIGN §7.3), scaled to the largest peak (or capacity),
// with each rank's peak-against-capacity bar in its gutter.

#include <QWidget>

#include <memory>

#include "trace/RunTrace.h"
#include "ui/timeline/TimeMapping.h"

namespace ps::ui {

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

 protected:
  void paintEvent(QPaintEvent* event) override;
  QSize sizeHint() const override { return {900, 160}; }

 private:
  std::shared_ptr<const trace::RunTrace> run_;
  TimeRange range_;
  std::int64_t scale_ = 1;
  int drawnColumns_ = 0;
};

}  // namespace ps::ui
