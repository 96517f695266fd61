#pragma once
// The main window: the bubble timeline in the centre, a run history and the stats in docks the
// user can rearrange (their layout is kept in QSettings).

#include <QMainWindow>

#include <memory>

class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTemporaryDir;
class QDockWidget;
class QProgressDialog;

namespace ps::trace {
struct RunTrace;
}

namespace ps::ui {

class TimelineView;
class MemoryView;
class PlanPanel;
class StageEditor;
class LinkTableModel;
class LinkMatrixView;
class CompareModel;
class RunController;
class ImportJob;
struct RunRequest;
struct ImportRequest;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Lists the runs of `path` and shows the latest; on failure shows the store's message (in a
  // dialog unless told not to) and returns false.
  bool openTrace(const QString& path, bool showErrorDialog = true);
  // Shows run `id` of the open file.
  bool showRun(qint64 id);
  // Simulates the demo (1F1B, 4 stages, 8 micro-batches) into `path` and opens it.
  bool openDemo(const QString& path);
  QString lastError() const { return lastError_; }
  TimelineView* timeline() const { return timeline_; }
  // The file new runs are appended to (the open file, or a scratch file for the demo).
  QString currentFile() const { return path_; }
  // Runs a request as if the Run button was pressed (tests, automation); the run happens on a
  // worker thread, runBusy() is true until its result has reached the window.
  void runRequest(const RunRequest& request);
  bool runBusy() const;
  // Exports: the timeline as PNG or SVG (by the file's suffix), the stats as CSV.
  bool exportTimeline(const QString& path);
  bool exportStatsCsv(const QString& path);
  // Compares two runs of the open file: stacked timelines on one axis and a table of differences.
  bool compareRuns(qint64 a, qint64 b);
  // File → Import without the dialog: imports into the open file on a worker thread, with a
  // progress dialog and Cancel; when done, shows the new run and what was recognised.
  // `dialogs` false (tests) shows no modal error box.
  void importTraces(const ImportRequest& request, bool dialogs = true);
  bool importBusy() const;
  QString lastImportSummary() const { return importSummary_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void chooseAndOpen();
  void rememberRecent(const QString& path);
  void rebuildRecentMenu();
  QMenu* recentMenu_ = nullptr;
  void fail(const QString& message, bool dialog);

  void chooseAndImport(const QStringList& files);
  void onImportFinished(qint64 id, const QString& summary);
  void onImportFailed(const QString& message);
  ImportJob* importJob_ = nullptr;
  QProgressDialog* importProgress_ = nullptr;
  QString importSummary_;
  bool importDialogs_ = true;

  void onRunFinished(qint64 id);
  void onRunFailed(const QString& message);
  void onProgress(const QString& stage, int done, int total);
  bool listRuns(bool showErrorDialog);
  // Selects run `id` in the history list without triggering a comparison.
  void selectInHistory(qint64 id);

  TimelineView* timeline_ = nullptr;
  MemoryView* memory_ = nullptr;
  PlanPanel* plan_ = nullptr;
  StageEditor* stageEditor_ = nullptr;
  LinkTableModel* links_ = nullptr;
  LinkMatrixView* linkMatrix_ = nullptr;
  CompareModel* compare_ = nullptr;
  TimelineView* compareTimeline_ = nullptr;
  QDockWidget* compareDock_ = nullptr;
  void compareSelected();
  RunController* controller_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  std::unique_ptr<QTemporaryDir> scratch_;
  QListWidget* runs_ = nullptr;
  QPlainTextEdit* report_ = nullptr;
  QString path_;
  QString lastError_;
  std::shared_ptr<const trace::RunTrace> run_;
};

}  // namespace ps::ui
