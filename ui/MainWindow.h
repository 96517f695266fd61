#pragma once
// The main window: the bubble timeline in the centre (two when comparing), docks the user can
// rearrange, close and reopen from the View menu (Plan, Run history, Stats, Links, Compare,
// Details of the selected op), a
// status bar with staged progress and Cancel. Each dock is its own widget; this class lays them
// out, builds the menus and passes on the one notification the docks follow
// (currentRunChanged). What is open and shown is its RunSession's (the file: RunLibrary), File →
// Import its ImportController's, the Plan dock's knobs and Fit plan its PlanDock's.

#include <QMainWindow>

#include <memory>
#include <string>

class QDockWidget;

namespace ps::runtime {
struct RunPlanRequest;
}

namespace ps::ui {

class CompareModel;
class ExplorePanel;
class ImportController;
class LinksPanel;
class OpDetailsPanel;
class PlanDock;
class RunController;
class RunHistoryPanel;
class RunLibrary;
class RunSession;
class StatsPanel;
class TeachPanel;
class TimelineArea;
class TimelineView;
struct ImportRequest;
struct LoadedRun;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Lists the runs of `path` and shows the latest; on failure shows the store's message (in a
  // dialog unless told not to) and returns false. A profile of another tool (an Nsight Systems
  // export) is pointed to File → Import instead.
  bool openTrace(const QString& path, bool showErrorDialog = true);
  // Shows run `id` of the open file as the only selected run.
  bool showRun(qint64 id);
  // Simulates the demo (1F1B, 4 stages, 8 micro-batches) into `path` and opens it.
  bool openDemo(const QString& path);
  // Papers → a preset (resources/presets): its plan in the Plan panel, its teaching text in the
  // Stats panel, simulated into the open file (runBusy() until shown).
  bool openPreset(const std::string& name);
  // Started without a file: reopens the scratch session in the user's data location (its runs
  // survive quitting), or starts it with the demo when it is new.
  bool openScratchSession();
  QString lastError() const;
  // True on a screen too small for the default size with its frame (1280×720) when no size was
  // saved: show it maximised so that the status bar and the bottom docks are on the screen.
  bool opensMaximized() const { return opensMaximized_; }
  TimelineView* timeline() const;
  // The file new runs are appended to.
  QString currentFile() const;
  // Runs a request as if the Run button was pressed (tests, automation); the run happens on a
  // worker thread, runBusy() is true until its result has reached the window.
  void runRequest(const runtime::RunPlanRequest& request);
  bool runBusy() const;
  // Simulated runs already shown whose save to the file has not ended (RunController).
  int savesPending() const;
  // Simulated runs shown whose explanation (bubble causes, critical path) is still being worked
  // out.
  int explanationsPending() const;
  // Exports: the timeline as PNG or SVG (by the file's suffix) with a title and the legend, the
  // stats as CSV. A message in the status bar says where it went.
  bool exportTimeline(const QString& path);
  bool exportStatsCsv(const QString& path);
  // Compares two runs of the open file: two labelled timelines on one axis, a table of
  // differences; `a` is the primary run the other panes show.
  bool compareRuns(qint64 a, qint64 b);
  // File → Import without the dialog: imports into the open file on a worker thread, with a
  // progress dialog and Cancel; when done, shows the new run and what was recognised.
  // `dialogs` false (tests) shows no modal error box.
  void importTraces(const ImportRequest& request, bool dialogs = true);
  bool importBusy() const;
  // File → Save as… without the dialog: a copy of the open file made through SQLite (runs still
  // in its -wal included, trace/store/TraceCopy.h), then opened. Saving onto the open file itself
  // changes nothing and says so.
  bool saveTraceAs(const QString& to, bool showErrorDialog = true);
  QString lastImportSummary() const;

 signals:
  // The run the window shows changed (selected, compared as A, grown live, explained): every
  // dock that shows the current run follows this (MainWindowDocks.cpp).
  void currentRunChanged(const std::shared_ptr<const LoadedRun>& run);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  // Escape that no widget took (the run history, a dock had the keyboard) clears a range
  // measured on the timeline.
  void keyPressEvent(QKeyEvent* event) override;

 private:
  QDockWidget* addDock(const QString& title, const char* name, QWidget* widget,
                       Qt::DockWidgetArea area);
  void fail(const QString& message, bool dialog);
  void fitToScreen();
  // MainWindowDocks.cpp: the bottom docks and the current run they follow.
  void buildBottomDocks();
  // MainWindowMenus.cpp
  void buildMenus();
  void buildPapersMenu();
  void chooseAndOpen();
  void rebuildRecentMenu();
  void setDarkPalette(bool on);

  TimelineArea* area_ = nullptr;
  PlanDock* plan_ = nullptr;
  RunHistoryPanel* history_ = nullptr;
  StatsPanel* stats_ = nullptr;
  LinksPanel* links_ = nullptr;
  CompareModel* compare_ = nullptr;
  OpDetailsPanel* details_ = nullptr;
  TeachPanel* teach_ = nullptr;
  ExplorePanel* explore_ = nullptr;
  QDockWidget *planDock_ = nullptr, *historyDock_ = nullptr, *statsDock_ = nullptr,
              *linksDock_ = nullptr, *compareDock_ = nullptr, *detailsDock_ = nullptr,
              *teachDock_ = nullptr, *exploreDock_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  RunController* controller_ = nullptr;
  RunLibrary* library_ = nullptr;  // the open file and its runs
  RunSession* session_ = nullptr;  // what is shown
  ImportController* importer_ = nullptr;
  bool opensMaximized_ = false;
};

}  // namespace ps::ui
