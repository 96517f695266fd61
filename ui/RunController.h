#pragma once
// Runs what the plan panel asks for and appends it to the open file, on a worker thread for every
// backend (sim, cpu, cuda), through the one runtime entry point (runtime/run/RunPlan.h), as a
// JobTracker job: a new request cancels the old one, and results reach the GUI thread only while
// still current (DESIGN §7.6). Progress is staged (plan → run → write) and throttled.
//
// A simulated run is shown from memory first: the worker asks the core for its preview
// (runtime::previewPlan: the run as the file will hold it), analyses it and hands it over
// (previewed), and only then is it written (runtime::savePreview), in the background, one save
// after another in the order they were shown (saveBegan with the file's id, then saved or
// saveFailed). A newer request does not cancel a save: what was shown is recorded. The run's
// explanation (bubble causes, critical path) follows the picture (explained), worked out on a
// thread of its own. cpu and cuda runs are written step by step as they train.

#include <QObject>
#include <QString>

#include <memory>

#include "runtime/run/RunPlan.h"
#include "ui/JobTracker.h"

namespace ps::trace {
struct RunExplanation;
}  // namespace ps::trace

namespace ps::ui {

struct LoadedRun;

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  // Waits for the saves still queued: a run that was shown is not lost by closing the window.
  ~RunController() override;

  // Starts a run appending to `path`; previewed (sim) or finished, or failed, follow on the GUI
  // thread. A job still running is cancelled first and waited for.
  void start(const runtime::RunPlanRequest& request, const QString& path);
  void cancel();
  // True from start() until the current job's previewed/finished/failed has been delivered.
  bool busy() const { return jobs_.busy(); }
  // A cpu or cuda run is training (from start() until its finished/failed is delivered);
  // `trainingProgress` says how far: "step 5/1000" (empty before the first step).
  bool training() const { return jobs_.busy() && training_; }
  const QString& trainingProgress() const { return trainingProgress_; }
  // Previewed runs whose save has not ended yet.
  int savesPending() const { return savesPending_; }
  // Previewed runs whose explanation has not arrived yet.
  int explanationsPending() const { return explanationsPending_; }
  // Blocks until every queued save has ended (tests, benchmarks, closing).
  void waitForSaves();

 signals:
  void progress(const QString& stage, int done, int total);
  void finished(qint64 runId);
  // A cpu or cuda run's row exists in the file (its steps follow, committed one by one).
  void began(qint64 runId);
  void failed(const QString& message);
  // The user cancelled the run (Cancel, or a newer request): not a failure of its knobs. A run
  // that had begun in the file came as finished first (kept as cancelled).
  void cancelled(const QString& message);
  // A simulated run, analysed, before it is in the file: its id is `placeholder` (< -1) until
  // saveBegan gives the file's.
  void previewed(const std::shared_ptr<const LoadedRun>& run, qint64 placeholder);
  void saveBegan(qint64 placeholder, qint64 runId);
  void saved(qint64 runId);
  // The save failed: the run stays in memory. `runId` is -1 when its row was never begun.
  void saveFailed(qint64 placeholder, qint64 runId, const QString& message);
  // The explanation of a previewed run (explaining was true), worked out after its picture.
  void explained(const std::shared_ptr<const LoadedRun>& run,
                 const std::shared_ptr<const trace::RunExplanation>& why);

 private:
  void startSimulation(const runtime::RunPlanRequest& request, const QString& path);
  void queueSave(const std::shared_ptr<const runtime::PlanPreview>& preview, const QString& path,
                 qint64 placeholder);
  void queueExplanation(const std::shared_ptr<const LoadedRun>& run);

  JobTracker jobs_;
  JobTracker saves_{this, JobTracker::Mode::KeepAll};     // in the order the runs were shown
  JobTracker explains_{this, JobTracker::Mode::KeepAll};  // each previewed run's, in order
  bool training_ = false;
  QString trainingProgress_;
  int savesPending_ = 0;
  int explanationsPending_ = 0;
  qint64 nextPlaceholder_ = -2;
};

}  // namespace ps::ui
