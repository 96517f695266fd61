#include "ui/PlanDock.h"

#include <QDir>
#include <QFileInfo>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "runtime/fit/PlanFit.h"
#include "runtime/run/Backend.h"
#include "runtime/run/RunConfig.h"
#include "runtime/run/RunPlan.h"
#include "ui/ElidedLabel.h"
#include "ui/JobTracker.h"
#include "ui/LoadedRun.h"
#include "ui/PlanPanel.h"
#include "ui/RunHistoryPanel.h"
#include "ui/RunLibrary.h"
#include "ui/StageEditor.h"
#include "ui/WheelGuard.h"
#include "ui/import/ImportRequest.h"

namespace ps::ui {
namespace {

// The stage editor's keys, under it (its focus frame shows when a click or Tab gives it the keys).
constexpr const char* kStageEditorKeys =
    "Keys: ←/→ select · Shift+←/→ move · Enter apply · Esc revert";

// Layers the app's fit spreads each stage over: boundaries can then move by a quarter stage.
constexpr int kFitLayersPerStage = 4;

// Not made by a backend (sim, cpu, cuda) and not a simulated schedule (torch-csv).
bool isImportedProfile(const trace::RunTrace& run) {
  return !runtime::parseBackend(run.info.source) && !isImportedSchedule(run.info.source);
}

// What a run without a plan records of one (issue 34 item 7): the knobs it can show.
PlanPanel::ImportedFacts importedFacts(const LoadedRun& run) {
  const trace::RunInfo& info = run.trace->info;
  PlanPanel::ImportedFacts facts;
  facts.ranks = info.num_ranks;
  facts.stages = info.num_stages;
  facts.microbatches = info.num_microbatches;
  facts.steps =
      static_cast<int>(run.analysis.steps.size()) + (run.analysis.incomplete_last_step ? 1 : 0);
  facts.schedule = info.schedule.value_or("");
  return facts;
}

}  // namespace

PlanDock::PlanDock(const RunLibrary& library, QWidget* parent)
    : QScrollArea(parent), library_(library) {
  auto* box = new QWidget(this);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(4, 4, 4, 4);
  plan_ = new PlanPanel(box);
  layout->addWidget(plan_);
  stageEditor_ = new StageEditor(box);
  layout->addWidget(stageEditor_);
  // Its keys in sight (issue 34 item 14: only its tooltip named them): one small line.
  keys_ = new ElidedLabel(box, true);
  keys_->setObjectName("stageEditorKeys");
  QFont small = keys_->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  keys_->setFont(small);
  keys_->setFullText(kStageEditorKeys);
  layout->addWidget(keys_);
  layout->addStretch(1);
  guardWheel(box);  // scrolling the dock leaves its knobs as they are
  // The editor follows Layers and the stage count as they change, not only after a run: a drag
  // then never sends boundaries of another layer count (issue 34 item 4).
  connect(plan_, &PlanPanel::shapeChanged, this, [this] {
    const PlanPanel::Shape shape = plan_->shape();
    stageEditor_->followShape(shape.layers, shape.stages);
    setEditable(true);  // a knob changed on an import: a new plan, whose cut can move
  });
  // Dragging a boundary reruns the shown plan with the new cut; Balance lets the partitioner cut.
  connect(stageEditor_, &StageEditor::boundariesChanged, this, [this](const QString& b) {
    plan_->setBoundaries(b);
    emit runRequested(plan_->request());
  });
  auto balance = [this] {
    plan_->setBoundaries({});
    emit runRequested(plan_->request());
  };
  connect(plan_, &PlanPanel::balanceRequested, this, balance);
  connect(stageEditor_, &StageEditor::balanceRequested, this, balance);
  connect(plan_, &PlanPanel::runRequested, this, &PlanDock::runRequested);
  fitJobs_ = std::make_unique<JobTracker>(this);
  connect(plan_, &PlanPanel::fitRequested, this, &PlanDock::fitShownRun);
  setObjectName("planScroll");
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  // The open "More" section may still be wider than the dock: scroll to Run rather than lose it.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setWidget(box);
  setMinimumWidth(box->sizeHint().width() + 16);
}

PlanDock::~PlanDock() = default;  // here: JobTracker is complete

void PlanDock::showRun(const std::shared_ptr<const LoadedRun>& run) {
  shown_ = run;
}

runtime::RunPlanRequest PlanDock::whatIf(const runtime::RunPlanRequest& request) const {
  runtime::RunPlanRequest run = request;
  if (fitOrigin_ && !request.fittedFrom) run.fittedFrom = fitOrigin_;
  return run;
}

void PlanDock::showKnobsOf(const LoadedRun& run) {
  stageEditor_->setRun(*run.trace);
  setEditable(true);
  const std::string& config = run.trace->info.config_json;
  auto request = runtime::requestFromConfigJson(config);
  if (request) {
    fitOrigin_ = runtime::fittedFromRun(config);
    plan_->showRequest(*request);
    return;
  }
  fitOrigin_.reset();
  if (!isImportedProfile(*run.trace)) {
    plan_->showImported(importedFacts(run));
    setEditable(false);
    plan_->setNotRerunnable(QString::fromStdString(request.error()));
    return;
  }
  if (const auto child = library_.history().lastFittedFrom(run.id())) {
    auto fitted = library_.load(*child);
    auto childRequest = fitted ? runtime::requestFromConfigJson((*fitted)->trace->info.config_json)
                               : Result<runtime::RunPlanRequest>(Error{fitted.error()});
    if (childRequest) {
      stageEditor_->setRun(*(*fitted)->trace);
      plan_->showRequest(*childRequest);
      fitOrigin_ = run.id();
      return;
    }
  }
  plan_->showImported(importedFacts(run));
  setEditable(false);
  plan_->setNotRerunnable(QString::fromStdString(request.error()) +
                              ". Fit plan fits one to it: its schedule, stage costs and links.",
                          std::nullopt, true);
  // The button is below the knobs: scrolled into view once the dock is laid out (720 px high).
  QTimer::singleShot(0, this, [this] {
    auto* button = plan_->findChild<QPushButton*>("fitPlanButton");
    if (button != nullptr && button->isVisible()) ensureWidgetVisible(button);
  });
}

void PlanDock::setEditable(bool editable) {
  stageEditor_->setEnabled(editable);
  keys_->setEnabled(editable);
}

void PlanDock::fitShownRun() {
  if (!shown_ || fitJobs_->busy()) return;
  const std::shared_ptr<const trace::RunTrace> trace = shown_->trace;
  const qint64 origin = shown_->id();
  const QFileInfo file(library_.file());
  runtime::fit::FitOptions options;
  options.layersPerStage = kFitLayersPerStage;
  // An order no generator makes is kept as a CSV beside the session file.
  options.scheduleFile =
      QDir(file.absolutePath())
          .filePath(QString("%1.fit-run%2.csv").arg(file.completeBaseName()).arg(origin))
          .toStdString();
  emit status(QString("fitting a plan to run %1 …").arg(origin), 0);
  fitJobs_->start([this, trace, origin, options](const JobTracker::Job& job) {
    auto fit = std::make_shared<Result<runtime::fit::FittedPlan>>(
        runtime::fit::fitPlan(*trace, options, job.cancelFlag()));
    job.finish([this, fit, origin] {
      if (!*fit) {
        emit failed(QString("Fit plan: ") + QString::fromStdString(fit->error()));
        return;
      }
      const runtime::fit::FittedPlan& f = **fit;
      runtime::RunPlanRequest request;
      request.spec = f.spec;
      request.fittedFrom = origin;
      request.name = "fit of run " + std::to_string(origin);
      fitOrigin_ = origin;
      emit status(
          QString("plan fitted to run %1: %2, replay %3 % of its step time")
              .arg(origin)
              .arg(QString::fromStdString(f.match.name.empty() ? "recorded order" : f.match.name))
              .arg(f.quality.stepError() * 100, 0, 'f', 2),
          15000);
      emit runRequested(request);
    });
  });
}

}  // namespace ps::ui
