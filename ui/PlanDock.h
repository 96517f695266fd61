#pragma once
// The Plan dock's contents: the plan panel and the stage editor, in a scroll area so that the
// window is never forced taller than a 1280×720 screen. They show the knobs of the run on
// screen, so that Run reruns what you see; on an imported profile, Fit plan fits a plan to it in
// the background (runtime/fit, issue 31 §3) and from then on the import's knobs are its fitted
// plan's, so that a dragged boundary or a new M or schedule is a what-if of the import.

#include <QScrollArea>

#include <memory>
#include <optional>

namespace ps::runtime {
struct RunPlanRequest;
}

namespace ps::ui {

class ElidedLabel;
class JobTracker;
class PlanPanel;
class RunLibrary;
class StageEditor;
struct LoadedRun;

class PlanDock : public QScrollArea {
  Q_OBJECT
 public:
  // `library`: the open file's runs, where an import's latest fitted plan is looked up.
  PlanDock(const RunLibrary& library, QWidget* parent = nullptr);
  ~PlanDock() override;

  PlanPanel* panel() const { return plan_; }
  // Every knob from the run's config_json; for an imported trace, its fitted plan's (the latest
  // fit or what-if of it in the file), or why it cannot be rerun and a Fit plan button.
  void showKnobsOf(const LoadedRun& run);
  // `request` as it runs: with the knobs of a plan fitted to an import, a what-if of that import.
  runtime::RunPlanRequest whatIf(const runtime::RunPlanRequest& request) const;

 public slots:
  // The run on screen (MainWindow::currentRunChanged): the one Fit plan fits.
  void showRun(const std::shared_ptr<const LoadedRun>& run);

 signals:
  // Run, a dragged boundary, Balance, or a plan just fitted.
  void runRequested(const runtime::RunPlanRequest& request);
  void status(const QString& text, int timeoutMs);
  void failed(const QString& message);

 private:
  void fitShownRun();
  // The stage editor and its keys: greyed while a run without a plan (an import) is shown.
  void setEditable(bool editable);

  const RunLibrary& library_;
  PlanPanel* plan_ = nullptr;
  StageEditor* stageEditor_ = nullptr;
  ElidedLabel* keys_ = nullptr;
  std::shared_ptr<const LoadedRun> shown_;
  // The imported run whose fitted plan the plan panel holds: what its runs are what-ifs of.
  std::optional<qint64> fitOrigin_;
  std::unique_ptr<JobTracker> fitJobs_;  // last: its job is joined before the rest goes
};

}  // namespace ps::ui
