#include "ui/PlanPanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

#include "runtime/run/Backends.h"
#include "runtime/schedules/Schedule.h"
#include "runtime/schedules/TokenSlices.h"
#include "ui/ElidedLabel.h"
#include "ui/PlanKnobValues.h"
#include "ui/PlanPanelTips.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {
using panelwidgets::combo;
using panelwidgets::dspin;
using panelwidgets::note;
using panelwidgets::scheduleCombo;
using panelwidgets::spin;

PlanPanel::PlanPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("planPanel");
  auto* root = new QVBoxLayout(this);
  root->setContentsMargins(4, 4, 4, 4);
  root->setSpacing(4);
  buildKnobs();
  root->addLayout(form_);
  buildMore();
  auto* moreRow = new QHBoxLayout;
  moreRow->addWidget(moreToggle_, 0, Qt::AlignLeft);
  moreRow->addWidget(moreSummary_, 1);
  root->addLayout(moreRow);
  root->addWidget(more_);
  buildActions();
  root->addWidget(actions_);
  root->addStretch(1);  // extra height below the knobs, never between them

  // A shape knob moves the stages: hand-placed boundaries no longer apply.
  for (QSpinBox* s : {stages_, chunks_, layers_})
    connect(s, &QSpinBox::valueChanged, this, [this] { userChanged(true); });
  for (QSpinBox* s : {microbatches_, steps_, hidden_})
    connect(s, &QSpinBox::valueChanged, this, [this] { userChanged(false); });
  for (QDoubleSpinBox* s : {linkGbps_, latency_})
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] { userChanged(false); });
  connect(schedule_, &QComboBox::currentIndexChanged, this, [this] { userChanged(true); });
  for (QComboBox* c : {backend_, model_, sync_, optimizer_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] { userChanged(false); });
  // The knob table's knobs report their own changes (buildMore).

  showRequest([] {
    runtime::RunPlanRequest r;
    r.spec.uniform.actMb = 1;  // transfers and memory show from the first run on
    r.exec = appModelOptions();
    return r;
  }());
}

void PlanPanel::buildKnobs() {
  form_ = new QFormLayout;
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setVerticalSpacing(3);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form_->addRow("Schedule", schedule_ = scheduleCombo(this));
  form_->addRow("Stages (P)", stages_ = spin(this, "stagesSpin", 1, 128, tips::kStages));
  form_->addRow("Micro-batches (M)",
                microbatches_ = spin(this, "microbatchesSpin", 1, 4096, tips::kMicrobatches));
  // TeraPipe's suffix ("1 × 25 token slices (auto)") would otherwise widen the whole form: the
  // box takes the column's width and keeps a plain spin box's minimum.
  microbatches_->setMinimumWidth(microbatches_->minimumSizeHint().width());
  microbatches_->setSizePolicy(QSizePolicy::Ignored, microbatches_->sizePolicy().verticalPolicy());
  form_->addRow("Chunks (V)", chunks_ = spin(this, "chunksSpin", 1, 8, tips::kChunks));
  form_->addRow("Layers", layers_ = spin(this, "layersSpin", 0, 4096, tips::kLayers));
  layers_->setSpecialValueText("P·V");
  steps_ = spin(this, "stepsSpin", 1, 1000, tips::kSteps);
  layersHint_ = note(this, "layersHint");
  layersHint_->setText("1 layer per stage: raise Layers to move boundaries");
  layersHint_->setToolTip(tips::kLayers);
  form_->addRow(layersHint_);
  form_->addRow("Steps", steps_);
  form_->addRow("Backend", backend_ = panelwidgets::backendCombo(this));
  form_->addRow("Model", model_ = combo(this, "modelCombo",
                                        {"transformer", "mlp", "snn", "moe", "gnn"}, tips::kModel));
  form_->addRow("Hidden size", hidden_ = spin(this, "hiddenSpin", 8, 4096, tips::kHidden));
  linkGbps_ = dspin(this, "linkSpin", 10000, 2, " Gb/s", tips::kLinkGbps);
  linkGbps_->setSpecialValueText("free");
  form_->addRow("Link bandwidth", linkGbps_);
}

bool PlanPanel::moreOpen() const {
  return !more_->isHidden();
}

void PlanPanel::setMoreOpen(bool open) {
  moreToggle_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
  more_->setVisible(open);
  moreSummary_->setVisible(!open);
}

void PlanPanel::buildActions() {
  actions_ = new PlanActions(this);
  connect(actions_, &PlanActions::simulateClicked, this, [this] {
    if (!simulate_) return;
    const runtime::RunPlanRequest request = *simulate_;
    showRequest(request);
    emit runRequested(this->request());
  });
  connect(actions_, &PlanActions::fitClicked, this, &PlanPanel::fitRequested);
  connect(actions_, &PlanActions::runClicked, this, [this] { emit runRequested(request()); });
  connect(actions_, &PlanActions::balanceClicked, this, [this] {
    boundaries_.clear();
    emit balanceRequested();
  });
  connect(actions_, &PlanActions::burstEnded, this, [this] {
    if (rerunnable_ && !problem_) emit runRequested(request());
  });
}

void PlanPanel::userChanged(bool shape) {
  if (loading_) return;
  if (shape) boundaries_.clear();
  if (imported_) {
    // A knob the import knows, changed: a new plan from its records and the app's defaults, every
    // knob back, the lists showing what runs.
    imported_.reset();
    const QSignalBlocker quietSchedule(schedule_), quietBackend(backend_);
    panelwidgets::select(schedule_, shown_.spec.schedule);
    panelwidgets::select(backend_, runtime::backendName(shown_.backend));
  }
  // A knob the user changes makes a new plan: an imported run's notice no longer applies.
  if (!rerunnable_) {
    rerunnable_ = true;
    actions_->hideNotice();
  }
  refresh();
  revalidate();
  if (shape) emit shapeChanged();
  if (actions_->knobChanged(rerunnable_ && !problem_)) emit runRequested(request());
}

PlanPanel::Shape PlanPanel::shape() const {
  Shape out;
  const runtime::PlanSpec& shown = shown_.spec;
  if (shown.scheduleFile.empty()) {
    const int p = stages_->value(), v = chunks_->value(), m = std::max(1, microbatches_->value());
    out.stages = p * v;
    // Most schedules have P·V stages; the V-shapes and a few others have their own count, which
    // generating the schedule tells (skipped where that is slow: the run says).
    if (static_cast<long>(p) * m * v <= kFullCheckLimit)
      if (auto plan = runtime::generateSchedule(panelwidgets::nameOf(schedule_), {p, m, v, 1}))
        out.stages = plan->numStages;
  }
  if (layers_->value() > 0)
    out.layers = layers_->value();
  else if (shown.costsFile.empty() && !shown.costs)
    out.layers = out.stages;  // "P·V": one layer per stage
  return out;
}

bool PlanPanel::trainsModel() const {
  const auto backend = runtime::parseBackend(backend_->currentData().toString().toStdString());
  return backend && runtime::trainsModel(*backend);
}

bool PlanPanel::layersAtPV() const {
  const runtime::PlanSpec& s = shown_.spec;
  if (!s.costsFile.empty() || s.costs || !s.scheduleFile.empty()) return false;
  const int v = layers_->value();
  return v == 0 || v == stages_->value() * chunks_->value();
}

void PlanPanel::refresh() {
  // Knobs an import greyed come back with a plan (greyUnknown greys them again while one shows).
  for (QWidget* w : std::initializer_list<QWidget*>{layers_, steps_, backend_, model_, hidden_,
                                                    linkGbps_, moreToggle_, more_}) {
    w->setEnabled(true);
    panelwidgets::markUnrecorded(w, false);
  }
  for (QWidget* w : std::initializer_list<QWidget*>{schedule_, stages_, microbatches_, chunks_})
    panelwidgets::markUnrecorded(w, false);
  const bool model = trainsModel();
  form_->setRowVisible(model_, model);
  form_->setRowVisible(hidden_, model);
  optimizer_->setEnabled(model);
  form_->setRowVisible(layersHint_, layersAtPV());
  const bool fromCsv = !shown_.spec.scheduleFile.empty();
  for (QWidget* w : {static_cast<QWidget*>(schedule_), static_cast<QWidget*>(stages_),
                     static_cast<QWidget*>(microbatches_), static_cast<QWidget*>(chunks_)})
    w->setEnabled(!fromCsv);
  // DynaPipe's grouping sets the micro-batch count: the spin says so instead of a stale number.
  const auto* seqLengths = qobject_cast<QLineEdit*>(knobs_.widget("seq_lengths"));
  const bool grouped = seqLengths && !seqLengths->text().trimmed().isEmpty();
  if (grouped != (microbatches_->minimum() == 0)) {
    const QSignalBlocker quiet(microbatches_);
    microbatches_->setMinimum(grouped ? 0 : 1);
    microbatches_->setSpecialValueText(grouped ? "set by the sequences" : "");
    microbatches_->setValue(grouped ? 0 : 8);
  }
  if (grouped) microbatches_->setEnabled(false);
  showTokenSlices();
  const bool fromCosts = !shown_.spec.costsFile.empty() || shown_.spec.costs;
  for (std::string_view key : kCostFlagKnobs)
    if (QWidget* w = knobs_.widget(key)) w->setEnabled(!fromCosts);
  actions_->balanceButton()->setEnabled(rerunnable_ && !layersAtPV());
  actions_->balanceButton()->setToolTip(layersAtPV() ? tips::kBalanceFixed : tips::kBalance);
  moreSummary_->setFullText(moreSummary());
  if (imported_) greyUnknown();
  updateRunEnabled();
}

void PlanPanel::updateRunEnabled() {
  actions_->setRunEnabled(!running_ && rerunnable_ && !problem_);
}

void PlanPanel::setRunning(bool running) {
  running_ = running;
  // Disabling the focused Run button would hand focus to the next widget (the stage editor),
  // and the dock's scroll area would jump to it: keep focus on the panel instead.
  if (running && actions_->runButton()->hasFocus()) setFocus(Qt::OtherFocusReason);
  updateRunEnabled();
}

// TeraPipe cuts each micro-batch into token slices: M says 1 while the timeline shows 25 slices,
// so the spin names the slices beside the count ("1 × 25 token slices").
void PlanPanel::showTokenSlices() {
  const auto* slices = qobject_cast<QLineEdit*>(knobs_.widget("token_slices"));
  const QString text = slices ? slices->text().trimmed() : QString();
  QString suffix;
  if (text == "auto") {
    // The count TeraPipe's DP picks for the knobs as they stand (the run gives the same).
    auto knob = [this](std::string_view key, double fallback) {
      const QWidget* w = knobs_.widget(key);
      bool ok = false;
      const double v = w ? knobvalues::valueOf(w).toDouble(&ok) : fallback;
      return ok ? v : fallback;
    };
    runtime::TokenSlicing slicing;
    slicing.tokens = static_cast<int>(knob("seq_tokens", slicing.tokens));
    slicing.attentionShare = knob("attention_share", slicing.attentionShare);
    slicing.overhead = knob("microbatch_overhead", slicing.overhead);
    const auto lengths =
        runtime::parseTokenSlices("auto", slicing, stages_->value(), microbatches_->value());
    suffix = lengths.ok() ? QString(" × %1 token slices (auto)").arg(lengths->size())
                          : QString(" × token slices (auto)");
  } else if (!text.isEmpty()) {
    bool number = false;
    const int k = text.toInt(&number);
    const int count = number ? k : static_cast<int>(text.split(',', Qt::SkipEmptyParts).size());
    suffix = QString(" × %1 token slice%2").arg(count).arg(count == 1 ? "" : "s");
  }
  if (microbatches_->suffix() == suffix) return;
  microbatches_->setSuffix(suffix);
  microbatches_->setToolTip(suffix.isEmpty() ? QString(tips::kMicrobatches)
                                             : QString(tips::kMicrobatches) +
                                                   "\n\nEach micro-batch is one sequence cut into "
                                                   "token slices (TeraPipe, under More): the "
                                                   "timeline shows a box per slice.");
}

void PlanPanel::setBoundaries(const QString& boundaries) {
  boundaries_ = boundaries;
}

void PlanPanel::setLayers(int layers) {
  loading_ = true;
  layers_->setValue(layers == stages_->value() * chunks_->value() ? 0 : layers);
  loading_ = false;
  refresh();
  revalidate();
}

}  // namespace ps::ui
