#pragma once
// The main window: the bubble timeline in the centre (two when comparing), docks the user can
// rearrange, close and reopen from the View menu (Plan, Run history, Stats, Links, Compare,
// Details of the selected op), a
// status bar with staged progress and Cancel. Each dock is its own widget; this class wires them
// together and owns what is open: the trace file and the primary (and compared) run.

#include <QMainWindow>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "trace/Result.h"

class QDockWidget;
class QLabel;
class QProgressBar;
class QProgressDialog;
class QPushButton;

namespace ps::runtime {
struct RunPlanRequest;
}
namespace ps::trace {
struct RunExplanation;
class RunTail;
}  // namespace ps::trace

namespace ps::ui {

class CompareModel;
class ExplorePanel;
class ImportJob;
class JobTracker;
class LinksPanel;
class OpDetailsPanel;
class PlanPanel;
class RunController;
class RunHistoryPanel;
class StageEditor;
class StatsPanel;
class TeachPanel;
class TimelineArea;
class TimelineView;
class TraceFileWatch;
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
  QString lastError() const { return lastError_; }
  // True on a screen too small for the default size with its frame (1280×720) when no size was
  // saved: show it maximised so that the status bar and the bottom docks are on the screen.
  bool opensMaximized() const { return opensMaximized_; }
  TimelineView* timeline() const;
  // The file new runs are appended to.
  QString currentFile() const { return path_; }
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
  QString lastImportSummary() const { return importSummary_; }

 signals:
  // The run the window shows changed (selected, compared as A, grown live, explained): every
  // dock that shows the current run follows this (MainWindowDocks.cpp).
  void currentRunChanged(const std::shared_ptr<const LoadedRun>& run);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // MainWindow.cpp: docks and what is shown.
  QDockWidget* addDock(const QString& title, const char* name, QWidget* widget,
                       Qt::DockWidgetArea area);
  void fail(const QString& message, bool dialog);
  bool listRuns(bool showErrorDialog, qint64 current = -1);
  void followHistorySelection();
  void showLoaded(const std::shared_ptr<const LoadedRun>& run);
  // MainWindowDocks.cpp: the bottom docks and the current run they follow.
  void buildBottomDocks();
  void setCurrentRun(const std::shared_ptr<const LoadedRun>& run);
  void endComparison();
  void fitToScreen();
  // MainWindowMenus.cpp
  void buildMenus();
  void buildPapersMenu();  // MainWindowMenus.cpp
  void chooseAndOpen();
  void rebuildRecentMenu();
  void setDarkPalette(bool on);
  // MainWindowRuns.cpp: the plan panel, the stage editor and runs.
  QWidget* buildPlanDock();
  void onRunFinished(qint64 id);
  // MainWindowFit.cpp: Fit plan on an imported run, its what-ifs compared with it.
  void showKnobsOf(const LoadedRun& run);
  void fitShownRun();
  void compareWithFitOrigin(const LoadedRun& run);
  // Shows the current (newest) run, or when the loader refuses it the newest one it does not,
  // with a message naming the refused run: one bad run does not hide the others.
  bool showLoadableRun();
  // MainWindowLive.cpp: the run on screen followed while it is written.
  bool followsLive() const;
  // Reads the steps committed since the last call and shows the run grown; false when the run
  // on screen is not one to follow (ended, compared, unsaved) or cannot be read.
  bool followLive();
  void onRunBegan(qint64 id);
  // A simulated run shown from memory, then saved in the background (MainWindowSaves.cpp).
  void onRunPreviewed(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder);
  void onSaveBegan(qint64 placeholder, qint64 id);
  void onSaved(qint64 id);
  void onSaveFailed(qint64 placeholder, qint64 id, const QString& message);
  void onRunExplained(const std::shared_ptr<const LoadedRun>& run,
                      const std::shared_ptr<const trace::RunExplanation>& why);
  // Run `id` of the open file: from memory while it is not saved, else loaded and analysed.
  Result<std::shared_ptr<const LoadedRun>> loadRun(qint64 id) const;
  bool isUnsaved(qint64 id) const { return unsaved_.count(id) > 0; }
  void onRunFailed(const QString& message);
  void onProgress(const QString& stage, int done, int total);
  // MainWindowRefresh.cpp: runs another process appended, finished or deleted.
  void refreshFromFile();
  // MainWindowImport.cpp
  void chooseAndImport(const QStringList& files);
  void onImportFinished(qint64 id, const QString& summary);
  void onImportFailed(const QString& message);
  void endImportProgress();

  TimelineArea* area_ = nullptr;
  PlanPanel* plan_ = nullptr;
  StageEditor* stageEditor_ = nullptr;
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
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  ImportJob* importJob_ = nullptr;
  TraceFileWatch* watch_ = nullptr;
  bool fileGone_ = false;  // said once per disappearance
  QProgressDialog* importProgress_ = nullptr;
  QString importSummary_;
  bool importDialogs_ = true;
  bool opensMaximized_ = false;
  QString path_;
  QString lastError_;
  std::shared_ptr<const LoadedRun> current_, compared_;
  // Runs shown before the file has them complete, by their id (a placeholder < -1 until the
  // save has begun, then the file's); dropped once saved, kept when the save failed.
  std::map<qint64, std::shared_ptr<const LoadedRun>> unsaved_;
  std::unique_ptr<trace::RunTail> tail_;  // the running run on screen, followed
  std::unique_ptr<JobTracker> fitJobs_;   // Fit plan, in the background
  // The imported run whose fitted plan the plan panel holds: what its runs are what-ifs of.
  std::optional<qint64> fitOrigin_;
};

}  // namespace ps::ui
