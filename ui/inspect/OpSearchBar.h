#pragma once
// The op search box over a timeline, as in Nsight Systems and Perfetto: type a query
// (trace/analysis/OpSearch.h), the matches are highlighted and everything else dimmed, Enter /
// Shift+Enter (or the arrows) step through them in time order, centring each; Escape clears.
// "3 / 17" says where you are, or the query's error in red. Ctrl+F (focusAction) focuses it.
// A checkbox beside it shows transfers as arrows from each send to its receive.
// On big runs typing searches in the background (a JobTracker job, cancelled by the next
// keystroke: "searching…" meanwhile), so the window never freezes on a query that scans ten
// million ops; Enter, the arrows and searchNow() still search at once.

#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

#include "trace/analysis/OpSearch.h"

class QAction;
class QCheckBox;
class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace ps::ui {

class JobTracker;
class TimelineView;

class OpSearchBar : public QWidget {
  Q_OBJECT
 public:
  explicit OpSearchBar(QWidget* parent = nullptr);
  ~OpSearchBar() override;

  // The timeline searched, highlighted and moved; its run is searched again when it changes.
  void setTimeline(TimelineView* timeline);
  // Ctrl+F: focuses the box (window-wide shortcut; also fit for a menu).
  QAction* focusAction() const { return focusAction_; }

  // The current query's matches in time order and which one is shown (-1: none yet).
  const std::vector<trace::OpRef>& matches() const { return matches_; }
  int current() const { return current_; }
  // The query's error, empty when it parsed.
  QString error() const { return error_; }

  // Runs a pending (debounced) search now; Enter does this before stepping. Supersedes a
  // background search in flight.
  void searchNow();
  // A background search is in flight (its matches are not in matches() yet).
  bool searching() const { return searching_; }

  // Runs with more ops than this wait kDebounceMs after the last keystroke before searching.
  static constexpr std::size_t kDebounceOps = 200'000;
  static constexpr int kDebounceMs = 150;

 public slots:
  void focusSearch();
  void next();
  void previous();
  void clear();

 signals:
  // After each search: the number of matches (0 also for an error or an empty query).
  void searched(int matches);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void queryEdited();
  void step(int delta);
  void showCount();
  void followSelection();
  void syncFlows();
  // Typing on a big run: parses here, matches on a worker, shows the result if still current.
  void searchInBackground();
  void showMatches(std::vector<trace::OpRef> matches);

  QPointer<TimelineView> timeline_;
  QLineEdit* edit_;
  QLabel* count_;
  QToolButton* prev_;
  QToolButton* next_;
  QCheckBox* flows_;
  QAction* focusAction_;
  QTimer* debounce_;
  std::vector<trace::OpRef> matches_;
  int current_ = -1;
  QString error_;
  // The run the matches belong to (the timeline's may change under them).
  const trace::RunTrace* searchedRun_ = nullptr;
  bool pending_ = false;
  bool searching_ = false;
  std::uint64_t searchGeneration_ = 0;  // a result applies only to the search that asked for it
  std::unique_ptr<JobTracker> jobs_;
};

}  // namespace ps::ui
