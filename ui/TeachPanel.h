#pragma once
// The Teach dock, a lesson on the run on screen, in three columns:
// - Replay: step through the compute ops in time order (play, pause, step, or the slider). Once
//   started, the timeline draws only the ops that have started (TimelineView::setRevealUntil);
//   the current op is selected (its micro-batch outlined, arrows from the ops it waited for) with
//   one sentence of why it starts when it does (trace/analysis/OpWait.h); each lane carries its
//   activations in flight (InFlightOverlay) and the table, per rank, the count and the bubble
//   accumulated since the step began: the warm-up fill, the steady state and the drain.
// - Predict, then reveal (RevealBox): a guess first, then the measured bubble beside the paper's
//   formula with the numbers put in; the end of the replay reveals too.
// - Lesson (LessonBox): the classic schedule's steps, each highlighting the ops it names.
// The timeline is left as it was whenever the dock is hidden.

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

#include "trace/RunTrace.h"
#include "trace/analysis/OpRef.h"

class QEvent;
class QLabel;
class QSlider;
class QTableWidget;
class QTimer;
class QToolButton;

namespace ps::ui {

struct LoadedRun;
struct LessonStep;

class InFlightOverlay;
class LessonBox;
class RevealBox;
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
  // Why the current op starts when it does (one sentence), empty before a run.
  QString whyText() const;
  // Whether the replay has begun (the timeline draws only the ops started by the current one).
  bool replaying() const { return replaying_; }
  RevealBox* revealBox() const { return reveal_; }
  LessonBox* lessonBox() const { return lesson_; }

 private:
  // Shows op `position` in the panel and, with moveTimeline, selects it on the timeline.
  void showOp(std::size_t position, bool moveTimeline);
  // One column per rank present, its items made once per run (showOp() only sets their text).
  void buildTable();
  // The replay's cutoff, the overlay and the lesson's highlights as the state says, on the
  // timeline only while the dock is visible.
  void applyToTimeline();
  void showLessonStep(const LessonStep* step);
  void endReplay();
  // Whether the dock is the tab in front: a tab behind another is still "visible" to Qt, only
  // its visible region is empty.
  bool inFront() const;
  bool event(QEvent* event) override;  // joins the dock's tab changes when put into one
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

  TimelineView* view_;
  std::shared_ptr<const trace::RunTrace> run_;
  std::vector<trace::OpRef> order_;  // compute ops by (start, rank)
  std::vector<int> columns_;         // the rank of each table column
  int highlighted_ = -1;             // the column shown highlighted
  std::size_t position_ = 0;
  QToolButton *back_, *play_, *forward_;
  QSlider* slider_;
  QLabel *current_, *why_;
  QTableWidget* table_;
  QTimer* timer_;
  RevealBox* reveal_;
  LessonBox* lesson_;
  InFlightOverlay* overlay_ = nullptr;
  QWidget* dock_ = nullptr;  // the dock it is in, whose tab changes it follows
  bool replaying_ = false;
  bool highlighting_ = false;            // the timeline's highlights are the lesson's
  std::vector<trace::OpRef> lessonOps_;  // highlighted for the lesson's step shown
};

}  // namespace ps::ui
