#pragma once
// Activations in flight drawn on the timeline's lanes for the Teach dock: a thin step line along
// the bottom of each rank's compute band (its height the rank's count, scaled to the run's peak)
// up to the replay's time, and the count itself written just after that time, in the part of the
// lane the replay has not drawn yet. A transparent child laid over the TimelineView (it follows
// the view's size; mouse events pass through), painted after the view on every update.

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>

#include "trace/analysis/ActivationsInFlight.h"

namespace ps::ui {

class TimelineView;

class InFlightOverlay : public QWidget {
  Q_OBJECT
 public:
  explicit InFlightOverlay(TimelineView* view);
  // The run's series (null: nothing to draw) and the replay's time (nullopt: the whole run).
  void setSeries(std::shared_ptr<const trace::ActivationsInFlight> series);
  void setUntil(std::optional<std::int64_t> t);
  // Lanes drawn in the last paint (for tests).
  int drawnLanes() const { return drawnLanes_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  TimelineView* view_;
  std::shared_ptr<const trace::ActivationsInFlight> series_;
  std::optional<std::int64_t> until_;
  int peak_ = 0;
  int drawnLanes_ = 0;
};

}  // namespace ps::ui
