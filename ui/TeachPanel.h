#pragma once
// The Teach dock: step through a run's compute ops in time order — play, pause, step forward and
// back, or drag the slider. The current op is selected on the timeline (its micro-batch outlined
// on every rank, arrows from the ops it waited for) and scrolled into view; beside it, per rank,
// the activations in flight (forwards begun, backwards not yet done) and the bubble accumulated
// since the step began, so a class can watch the warm-up fill, the steady state and the drain.

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

class QLabel;
class QSlider;
class QTableWidget;
class QTimer;
class QToolButton;

namespace ps::ui {

struct LoadedRun;

class TimelineView;

class TeachPanel : public QWidget {
  Q_OBJECT
 public:
  // Runs of more ops than this are not stepped through (a teaching run has hundreds).
  static constexpr std::size_t kMaxOps = 200000;

  explicit TeachPanel(TimelineView* view, QWidget* parent = nullptr);
  void setRun(std::shared_ptr<const trace::RunTrace> run);
  // The window's current run (MainWindow::currentRunChanged): starts over only when its ops
  // changed, not when the same trace comes back explained.
  void showRun(const std::shared_ptr<const LoadedRun>& run);

  std::size_t count() const { return order_.size(); }
  std::size_t position() const { return position_; }
  void setPosition(std::size_t position);
  void stepForward();
  void stepBack();
  void setPlaying(bool playing);
  bool playing() const;

  struct RankState {
    int inFlight = 0;         // forwards begun minus backwards (B or I) ended, by the op's start
    std::int64_t idleNs = 0;  // the rank's idle time from its step's start to the op's start
  };
  // Per rank slot of the run, at the current op (what the table shows, for the ranks present).
  std::vector<RankState> rankStates() const;
  // The table's columns: the ranks present (trace/analysis/PresentRanks.h), by number.
  const std::vector<int>& columnRanks() const { return columns_; }
  QString currentText() const;

 private:
  // Shows op `position` in the panel and, with moveTimeline, selects it on the timeline.
  void show(std::size_t position, bool moveTimeline);
  // One column per rank present, its items made once per run (show() only sets their text).
  void buildTable();

  TimelineView* view_;
  std::shared_ptr<const trace::RunTrace> run_;
  std::vector<trace::OpRef> order_;  // compute ops by (start, rank)
  std::vector<int> columns_;         // the rank of each table column
  int highlighted_ = -1;             // the column shown highlighted
  std::size_t position_ = 0;
  QToolButton *back_, *play_, *forward_;
  QSlider* slider_;
  QLabel* current_;
  QTableWidget* table_;
  QTimer* timer_;
};

}  // namespace ps::ui
