// The main window's fitted plans (issue 31 §3): Fit plan on an imported run fits a plan to it in
// the background (runtime/fit), runs the fitted plan as a child of the import and compares the
// two; from then on the import's knobs are its fitted plan's, so that a dragged boundary or a new
// M or schedule is a what-if, compared with the recorded original (A) as soon as it is shown.

#include <QDir>
#include <QFileInfo>
#include <QPushButton>
#include <QScrollArea>
#include <QStatusBar>
#include <QTimer>

#include <cmath>

#include "runtime/fit/PlanFit.h"
#include "runtime/run/Backend.h"
#include "runtime/run/RunConfig.h"
#include "runtime/run/RunPlan.h"
#include "ui/JobTracker.h"
#include "ui/LoadedRun.h"
#include "ui/MainWindow.h"
#include "ui/PlanPanel.h"
#include "ui/RunHistoryPanel.h"
#include "ui/StageEditor.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

// Layers the app's fit spreads each stage over: boundaries can then move by a quarter stage.
constexpr int kFitLayersPerStage = 4;

// Not made by a backend (sim, cpu, cuda) and not a simulated schedule (torch-csv).
bool isImportedProfile(const trace::RunTrace& run) {
  return !runtime::parseBackend(run.info.source) && !isImportedSchedule(run.info.source);
}

}  // namespace

// The plan panel and the stage editor follow the run on screen, so Run reruns what you see:
// every knob from the run's config_json; for an imported trace, its fitted plan's (the latest
// fit or what-if of it in the file), or why it cannot be rerun and a Fit plan button.
void MainWindow::showKnobsOf(const LoadedRun& run) {
  stageEditor_->setRun(*run.trace);
  const std::string& config = run.trace->info.config_json;
  auto request = runtime::requestFromConfigJson(config);
  if (request) {
    fitOrigin_ = runtime::fittedFromRun(config);
    plan_->showRequest(*request);
    return;
  }
  fitOrigin_.reset();
  if (!isImportedProfile(*run.trace)) {
    plan_->setNotRerunnable(QString::fromStdString(request.error()));
    return;
  }
  if (const auto child = history_->lastFittedFrom(run.id())) {
    auto fitted = loadRun(*child);
    auto childRequest = fitted ? runtime::requestFromConfigJson((*fitted)->trace->info.config_json)
                               : Result<runtime::RunPlanRequest>(Error{fitted.error()});
    if (childRequest) {
      stageEditor_->setRun(*(*fitted)->trace);
      plan_->showRequest(*childRequest);
      fitOrigin_ = run.id();
      return;
    }
  }
  plan_->setNotRerunnable(QString::fromStdString(request.error()) +
                              ". Fit plan fits one to it: its schedule, stage costs and links.",
                          std::nullopt, true);
  // The button is below the knobs: scrolled into view once the dock is laid out (720 px high).
  QTimer::singleShot(0, this, [this] {
    auto* scroll = findChild<QScrollArea*>("planScroll");
    auto* button = plan_->findChild<QPushButton*>("fitPlanButton");
    if (scroll != nullptr && button != nullptr && button->isVisible())
      scroll->ensureWidgetVisible(button);
  });
}

void MainWindow::fitShownRun() {
  if (!current_ || fitJobs_->busy()) return;
  const std::shared_ptr<const trace::RunTrace> trace = current_->trace;
  const qint64 origin = current_->id();
  runtime::fit::FitOptions options;
  options.layersPerStage = kFitLayersPerStage;
  // An order no generator makes is kept as a CSV beside the session file.
  options.scheduleFile =
      QDir(QFileInfo(path_).absolutePath())
          .filePath(
              QString("%1.fit-run%2.csv").arg(QFileInfo(path_).completeBaseName()).arg(origin))
          .toStdString();
  statusBar()->showMessage(QString("fitting a plan to run %1 …").arg(origin));
  fitJobs_->start([this, trace, origin, options](const JobTracker::Job& job) {
    auto fit = std::make_shared<Result<runtime::fit::FittedPlan>>(
        runtime::fit::fitPlan(*trace, options, job.cancelFlag()));
    job.finish([this, fit, origin] {
      if (!*fit) {
        fail(QString("Fit plan: ") + QString::fromStdString(fit->error()), false);
        statusBar()->showMessage(lastError_, 15000);
        return;
      }
      const runtime::fit::FittedPlan& f = **fit;
      runtime::RunPlanRequest request;
      request.spec = f.spec;
      request.fittedFrom = origin;
      request.name = "fit of run " + std::to_string(origin);
      fitOrigin_ = origin;
      statusBar()->showMessage(
          QString("plan fitted to run %1: %2, replay %3 % of its step time")
              .arg(origin)
              .arg(QString::fromStdString(f.match.name.empty() ? "recorded order" : f.match.name))
              .arg(f.quality.stepError() * 100, 0, 'f', 2),
          15000);
      runRequest(request);
    });
  });
}

// A fitted plan or a what-if of one, just shown: compared with the imported run it came from
// (A, the recorded original) while its own knobs stay in the plan panel for the next what-if.
void MainWindow::compareWithFitOrigin(const LoadedRun& run) {
  const auto origin = runtime::fittedFromRun(run.trace->info.config_json);
  if (!origin || *origin == run.id() || history_->info(*origin) == nullptr) return;
  if (!compareRuns(*origin, run.id())) return;
  showKnobsOf(run);
}

}  // namespace ps::ui
