#pragma once
// The centre of the window: the bubble timeline of the primary run (a header naming it, the op
// search bar beside it), a second labelled timeline of equal height when two runs are compared
// (one shared time axis: zooming or panning either moves both), and the memory tracks on the
// same axis, following the primary run and its vertical scroll.

#include <QWidget>

#include <memory>

class QLabel;
class QSplitter;

namespace ps::ui {

struct LoadedRun;
class MemoryView;
class OpSearchBar;
class TimelinePanel;
class TimelineView;

class TimelineArea : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineArea(QWidget* parent = nullptr);

  // Shows one run; ends a comparison.
  void showRun(const std::shared_ptr<const LoadedRun>& run);
  // Shows `a` (primary: memory follows it) above `b`, on the union of their time extents.
  void showComparison(const std::shared_ptr<const LoadedRun>& a,
                      const std::shared_ptr<const LoadedRun>& b);
  bool comparing() const;
  // The primary timeline's title again, for `run` (an unsaved run that now has its file id).
  void retitle(const LoadedRun& run);
  // The same for the compared timeline (B: a what-if saved while compared with its import).
  void retitleCompared(const LoadedRun& run);
  // A newer read of the run shown (followed live): the view stays where the user put it.
  void growRun(const std::shared_ptr<const LoadedRun>& run);
  // Clears the range measured on either timeline; false when there was none.
  bool clearRangeBands();
  // `run`'s explanation (bubble causes, critical path) on whichever timeline shows it.
  void explain(const LoadedRun& run);

  TimelineView* timeline() const;
  TimelineView* compareTimeline() const;
  MemoryView* memory() const { return memory_; }
  OpSearchBar* searchBar() const { return search_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void equalizeHeights();
  // The memory tracks scrolled to the primary timeline's first scrolled rank.
  void syncMemoryScroll();

  QSplitter* split_;
  TimelinePanel *primary_, *compared_;
  OpSearchBar* search_;
  MemoryView* memory_;
  bool equalizePending_ = false;
};

// "A · run 3 · 1f1b p=4 m=8 · sim" (prefix empty when not comparing); "unsaved run" for a run
// shown before its save has begun.
QString timelineTitle(const LoadedRun& run, const QString& prefix);

}  // namespace ps::ui
