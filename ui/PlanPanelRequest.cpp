// The plan panel's request: shown into the knobs, read back from them, checked as they change.
// A knob the user has not touched gives back the exact value it was shown (a spin box rounds to
// its decimals and clamps to its range), so that an untouched panel reruns the run byte for byte.

#include <cmath>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QToolButton>
#include <QVariant>

#include "runtime/schedules/Schedule.h"
#include "ui/ElidedLabel.h"
#include "ui/PlanKnobValues.h"
#include "ui/PlanKnobWidgets.h"
#include "ui/PlanPanel.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {

bool PlanPanel::turningKnobs() const {
  return actions_->turningKnobs();
}

void PlanPanel::showRequest(const runtime::RunPlanRequest& request) {
  if (turningKnobs()) return;
  imported_.reset();
  shown_ = request;
  shown_.built.reset();  // the panel reruns from the knobs: the spec is the plan
  // A simulation has no model options: should the user switch to cpu or cuda, the app's.
  if (!runtime::trainsModel(request.backend)) shown_.exec = appModelOptions();
  const runtime::PlanSpec& s = request.spec;
  loading_ = true;
  panelwidgets::select(schedule_, s.schedule);
  stages_->setValue(s.stages.value_or(4));
  microbatches_->setValue(s.microbatches.value_or(8));
  chunks_->setValue(s.chunks);
  const int pv = stages_->value() * chunks_->value();
  const bool givenCosts = s.costs || !s.costsFile.empty();
  if (s.costs && !s.layers)
    layers_->setValue(static_cast<int>(s.costs->layers.size()));  // the costs' layer count
  else
    layers_->setValue(!s.layers || (*s.layers == pv && !givenCosts) ? 0 : *s.layers);
  steps_->setValue(s.steps);
  panelwidgets::select(backend_, runtime::backendName(request.backend));
  panelwidgets::select(model_, runtime::blockTypeName(shown_.exec.model.block));
  hidden_->setValue(shown_.exec.model.hidden);
  // The link a model backend emulates is its own option; the simulator's is the plan's.
  const bool model = runtime::trainsModel(request.backend);
  const std::optional<double> gbps = model ? request.exec.linkGbps : s.uniform.linkGbps;
  linkGbps_->setValue(gbps.value_or(0));
  latency_->setValue(model ? request.exec.linkLatencyUs : s.uniform.linkLatencyUs);
  panelwidgets::select(sync_, runtime::optimizerSyncName(s.optimizerSync));
  panelwidgets::select(optimizer_, runtime::optimizerName(shown_.exec.optimizer.kind));
  knobs_.show(s);
  for (QWidget* w : std::initializer_list<QWidget*>{stages_, microbatches_, chunks_, layers_,
                                                    steps_, hidden_, linkGbps_, latency_, schedule_,
                                                    backend_, model_, sync_, optimizer_})
    knobvalues::snapshot(w);
  loading_ = false;
  boundaries_ = QString::fromStdString(s.boundaries);
  rerunnable_ = true;
  simulate_.reset();
  actions_->showNotice(s.scheduleFile.empty()
                           ? QString()
                           : "Schedule from " + QString::fromStdString(s.scheduleFile) +
                                 " (its stages and micro-batches).");
  actions_->stopRerun();  // showing a run is no change to rerun
  refresh();
  revalidate();
}

runtime::RunPlanRequest PlanPanel::request() const {
  runtime::RunPlanRequest r = shown_;
  // A rerun is a new run: named after its knobs and writing its own config.
  r.name.clear();
  r.configJson.clear();
  runtime::PlanSpec& s = r.spec;
  if (knobvalues::touched(schedule_)) s.schedule = panelwidgets::nameOf(schedule_);
  if (knobvalues::touched(stages_)) s.stages = stages_->value();
  if (knobvalues::touched(microbatches_)) s.microbatches = microbatches_->value();
  if (knobvalues::touched(chunks_)) s.chunks = chunks_->value();
  if (knobvalues::touched(layers_) || knobvalues::touched(stages_) ||
      knobvalues::touched(chunks_)) {
    if (layers_->value() > 0)
      s.layers = layers_->value();
    else if (!s.layers || *s.layers != stages_->value() * chunks_->value())
      s.layers.reset();  // "P·V" of the shape on screen
  }
  if (knobvalues::touched(steps_)) s.steps = steps_->value();
  s.boundaries = boundaries_.toStdString();
  if (knobvalues::touched(backend_))
    r.backend =
        runtime::parseBackend(panelwidgets::nameOf(backend_)).value_or(runtime::Backend::Sim);
  if (knobvalues::touched(model_))
    if (const auto block = runtime::parseBlockType(panelwidgets::nameOf(model_)); block.ok())
      r.exec.model.block = *block;
  if (knobvalues::touched(hidden_)) r.exec.model.hidden = hidden_->value();
  if (knobvalues::touched(optimizer_))
    r.exec.optimizer.kind = panelwidgets::nameOf(optimizer_) == "sgd"
                                ? runtime::OptimizerKind::Sgd
                                : runtime::OptimizerKind::Adam;
  // One link setting, for the simulator's plan and a model backend's emulation alike.
  if (knobvalues::touched(linkGbps_) || knobvalues::touched(latency_) ||
      knobvalues::touched(backend_)) {
    const bool model = runtime::trainsModel(shown_.backend);
    std::optional<double> gbps = model ? shown_.exec.linkGbps : shown_.spec.uniform.linkGbps;
    double latency = model ? shown_.exec.linkLatencyUs : shown_.spec.uniform.linkLatencyUs;
    if (knobvalues::touched(linkGbps_))
      gbps = linkGbps_->value() > 0 ? std::optional<double>(linkGbps_->value()) : std::nullopt;
    if (knobvalues::touched(latency_)) latency = latency_->value();
    s.uniform.linkGbps = r.exec.linkGbps = gbps;
    s.uniform.linkLatencyUs = r.exec.linkLatencyUs = latency;
  }
  if (knobvalues::touched(sync_))
    s.optimizerSync = runtime::parseOptimizerSync(panelwidgets::nameOf(sync_))
                          .value_or(runtime::OptimizerSync::Barrier);
  knobs_.read(s);
  // The grouping sets the count: a count from a run without sequences would be refused.
  if (!s.seqLengths.empty()) s.microbatches.reset();
  return r;
}

void PlanPanel::showImported(const ImportedFacts& facts) {
  runtime::RunPlanRequest r;
  r.spec.uniform.actMb = 1;  // as the app's first plan: transfers and memory show
  r.exec = appModelOptions();
  ImportKnown known;
  known.schedule = runtime::findSchedule(facts.schedule) != nullptr;
  if (known.schedule) r.spec.schedule = facts.schedule;
  known.ranks = facts.ranks > 0;
  if (known.ranks) r.spec.stages = facts.ranks;
  known.microbatches = facts.microbatches && *facts.microbatches > 0;
  if (known.microbatches) r.spec.microbatches = *facts.microbatches;
  known.chunks = known.ranks && facts.stages && *facts.stages >= facts.ranks &&
                 *facts.stages % facts.ranks == 0;
  if (known.chunks) r.spec.chunks = *facts.stages / facts.ranks;
  known.steps = facts.steps > 0;
  if (known.steps) r.spec.steps = facts.steps;
  showRequest(r);
  if (turningKnobs()) return;  // showRequest kept the knobs being turned
  imported_ = known;
  showProblem(std::nullopt);  // the defaults under grey are no plan to check
  refresh();
}

void PlanPanel::greyUnknown() {
  const ImportKnown& k = *imported_;
  const std::pair<QWidget*, bool> recorded[] = {{schedule_, k.schedule},
                                                {stages_, k.ranks},
                                                {microbatches_, k.microbatches},
                                                {chunks_, k.chunks},
                                                {steps_, k.steps}};
  for (const auto& [w, known] : recorded) {
    w->setEnabled(known);
    panelwidgets::markUnrecorded(w, !known);
  }
  for (QWidget* w : std::initializer_list<QWidget*>{layers_, backend_, model_, hidden_, linkGbps_,
                                                    moreToggle_, more_}) {
    w->setEnabled(false);
    panelwidgets::markUnrecorded(w, true);
  }
  // A list shows no entry rather than a default the import never ran (not "sim", not "1f1b").
  const QSignalBlocker quietSchedule(schedule_), quietBackend(backend_);
  if (!k.schedule) schedule_->setCurrentIndex(-1);
  backend_->setCurrentIndex(-1);
  form_->setRowVisible(layersHint_, false);
  setMoreOpen(false);
  moreSummary_->setFullText("not recorded in this run");
}

void PlanPanel::setNotRerunnable(const QString& why,
                                 const std::optional<runtime::RunPlanRequest>& simulate,
                                 bool canFit) {
  actions_->stopRerun();
  rerunnable_ = false;
  simulate_ = simulate;
  actions_->showNotice(why, simulate.has_value(), canFit);
  refresh();
}

void PlanPanel::showRunError(const QString& message) {
  const std::string text = message.toStdString();
  showProblem(KnobProblem{text, knobNamedIn(text)});
}

void PlanPanel::revalidate() {
  std::vector<std::string> refusals;
  const runtime::RunPlanRequest shown = request();
  showProblem(checkRequest(shown, panelwidgets::unavailable(shown.backend), &refusals));
  panelwidgets::describeBackendEntries(backend_, refusals);
}

QWidget* PlanPanel::widgetFor(Knob knob) const {
  const std::pair<Knob, QWidget*> own[] = {{Knob::Schedule, schedule_},
                                           {Knob::Stages, stages_},
                                           {Knob::Microbatches, microbatches_},
                                           {Knob::Chunks, chunks_},
                                           {Knob::Layers, layers_},
                                           {Knob::Steps, steps_},
                                           {Knob::Backend, backend_},
                                           {Knob::Model, model_},
                                           {Knob::Hidden, hidden_},
                                           {Knob::Optimizer, optimizer_},
                                           {Knob::LinkGbps, linkGbps_},
                                           {Knob::LinkLatency, latency_}};
  for (const auto& [k, w] : own)
    if (k == knob) return w;
  if (knob == Knob::Sequences) {
    auto* lengths = qobject_cast<QLineEdit*>(knobs_.widget("seq_lengths"));
    return lengths && lengths->text().trimmed().isEmpty() ? knobs_.widget("token_slices") : lengths;
  }
  return knobs_.widget(knobTableKey(knob));
}

void PlanPanel::showProblem(const std::optional<KnobProblem>& problem) {
  problem_ = problem;
  QWidget* bad = problem ? widgetFor(problem->knob) : nullptr;
  for (int k = static_cast<int>(Knob::Schedule); k <= static_cast<int>(Knob::Partition); ++k) {
    QWidget* w = widgetFor(static_cast<Knob>(k));
    const bool invalid = w == bad;
    if (w->property("invalid").toBool() == invalid) continue;
    w->setProperty("invalid", invalid);
    panelwidgets::markInvalid(w, invalid);
  }
  // A knob under "More" with the problem: open it, so that the red frame shows.
  if (bad && more_->isAncestorOf(bad)) setMoreOpen(true);
  QLabel* error = actions_->errorLabel();
  error->setText(problem ? inPanelWords(problem->message) : QString());
  error->setVisible(problem.has_value());
  updateRunEnabled();
}

}  // namespace ps::ui
