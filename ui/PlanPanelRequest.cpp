// The plan panel's request: shown into the knobs, read back from them, checked as they change.
// A knob the user has not touched gives back the exact value it was shown (a spin box rounds to
// its decimals and clamps to its range), so that an untouched panel reruns the run byte for byte.

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>
#include <QTimer>
#include <QToolButton>
#include <QVariant>

#include "ui/PlanPanel.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {
namespace {

constexpr const char* kShown = "shownValue";

void snapshot(QSpinBox* s) {
  s->setProperty(kShown, s->value());
}
void snapshot(QDoubleSpinBox* s) {
  s->setProperty(kShown, s->value());
}
void snapshot(QComboBox* c) {
  c->setProperty(kShown, c->currentIndex());
}
void snapshot(QCheckBox* c) {
  c->setProperty(kShown, c->isChecked());
}
void snapshot(QLineEdit* e) {
  e->setProperty(kShown, e->text());
}
bool touched(const QLineEdit* e) {
  return e->text() != e->property(kShown).toString();
}
// "1, 1, 2, 1" as numbers; a value that is not one becomes NaN, which buildPlan refuses naming
// the flag and the rank.
std::vector<double> numbersIn(const QString& text) {
  std::vector<double> out;
  if (text.trimmed().isEmpty()) return out;
  for (const QString& part : text.split(',')) {
    bool ok = false;
    const double v = part.trimmed().toDouble(&ok);
    out.push_back(ok ? v : std::nan(""));
  }
  return out;
}
QString textOf(const std::vector<double>& values) {
  QStringList parts;
  for (double v : values)
    parts << QString::number(v, 'g', 12);
  return parts.join(",");
}
bool touched(const QSpinBox* s) {
  return s->value() != s->property(kShown).toInt();
}
bool touched(const QDoubleSpinBox* s) {
  return s->value() != s->property(kShown).toDouble();
}
bool touched(const QComboBox* c) {
  return c->currentIndex() != c->property(kShown).toInt();
}
bool touched(const QCheckBox* c) {
  return c->isChecked() != c->property(kShown).toBool();
}

// The combo entry whose name (Qt::UserRole) is `name`; blank when it has none (a schedule read
// from a CSV file), rather than an entry that would not be what reruns.
void select(QComboBox* c, std::string_view name) {
  c->setCurrentIndex(c->findData(QString::fromUtf8(name.data(), static_cast<int>(name.size()))));
}

std::string nameOf(const QComboBox* c) {
  return c->currentData().toString().toStdString();
}

// Why the chosen backend cannot run here (its registry row's availability); empty: it can.
std::string unavailable(runtime::Backend backend) {
  const auto& here = panelwidgets::backendEntries()[static_cast<std::size_t>(backend)].availability;
  return here.ok ? std::string() : here.message;
}

}  // namespace

runtime::CpuRunOptions appModelOptions() {
  runtime::CpuRunOptions options;
  options.model.block = runtime::BlockType::Transformer;
  options.model.hidden = 64;
  options.model.heads = 4;
  options.optimizer.kind = runtime::OptimizerKind::Adam;
  options.optimizer.lr = 0.001f;
  return options;
}

bool PlanPanel::turningKnobs() const {
  return rerunTimer_->isActive() || rerunPending_;
}

void PlanPanel::showRequest(const runtime::RunPlanRequest& request) {
  if (turningKnobs()) return;
  shown_ = request;
  shown_.built.reset();  // the panel reruns from the knobs: the spec is the plan
  // A simulation has no model options: should the user switch to cpu or cuda, the app's.
  if (!runtime::trainsModel(request.backend)) shown_.exec = appModelOptions();
  const runtime::PlanSpec& s = request.spec;
  loading_ = true;
  select(schedule_, s.schedule);
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
  select(backend_, runtime::backendName(request.backend));
  select(model_, runtime::blockTypeName(shown_.exec.model.block));
  hidden_->setValue(shown_.exec.model.hidden);
  // The link a model backend emulates is its own option; the simulator's is the plan's.
  const bool model = runtime::trainsModel(request.backend);
  const std::optional<double> gbps = model ? request.exec.linkGbps : s.uniform.linkGbps;
  linkGbps_->setValue(gbps.value_or(0));
  latency_->setValue(model ? request.exec.linkLatencyUs : s.uniform.linkLatencyUs);
  actMb_->setValue(s.uniform.actMb);
  fwd_->setValue(s.uniform.fwdUs);
  bwd_->setValue(s.uniform.bwdUs);
  wgrad_->setValue(s.uniform.wgradUs);
  select(sync_, runtime::optimizerSyncName(s.optimizerSync));
  recompute_->setChecked(s.recompute);
  splitBackward_->setChecked(s.splitBackward);
  forwardOnly_->setChecked(s.forwardOnly);
  balanceActivations_->setChecked(s.balanceActivations);
  rankSpeed_->setText(textOf(s.rankSpeed));
  rankMemory_->setText(textOf(s.rankMemoryGb));
  dataParallel_->setValue(s.dataParallel);
  maxDeferredW_->setValue(s.maxDeferredW);
  topology_->setText(QString::fromStdString(s.topology));
  interGbps_->setValue(s.interGbps.value_or(0));
  interLatency_->setValue(s.interLatencyUs);
  mapping_->setText(QString::fromStdString(s.mapping));
  select(partition_, s.partition == "memory" ? "memory" : "time");
  timeSlack_->setValue(s.timeSlack);
  frozenUs_->setValue(s.frozenUs);
  select(fill_, s.fill == "before" ? "before" : "bubbles");
  stageGraph_->setText(QString::fromStdString(s.stageGraph));
  a2aMb_->setValue(s.a2aMb);
  select(a2a_, s.a2a == "serial" ? "serial" : "overlap");
  fetchMb_->setValue(s.fetchMb);
  select(fetch_, s.fetch == "serial" ? "serial" : "overlap");
  select(weightVersions_, s.weightVersions.empty() ? "stash" : s.weightVersions.c_str());
  tokenSlices_->setText(QString::fromStdString(s.tokenSlices));
  seqLengths_->setText(QString::fromStdString(s.seqLengths));
  select(microbatching_, s.microbatching == "packed" ? "packed" : "dp");
  select(optimizer_, runtime::optimizerName(shown_.exec.optimizer.kind));
  for (QSpinBox* w :
       {stages_, microbatches_, chunks_, layers_, steps_, hidden_, dataParallel_, maxDeferredW_})
    snapshot(w);
  for (QDoubleSpinBox* w : {linkGbps_, latency_, actMb_, fwd_, bwd_, wgrad_, interGbps_,
                            interLatency_, timeSlack_, frozenUs_, a2aMb_, fetchMb_})
    snapshot(w);
  for (QComboBox* w : {schedule_, backend_, model_, sync_, optimizer_, partition_, fill_,
                       microbatching_, weightVersions_, a2a_, fetch_})
    snapshot(w);
  for (QCheckBox* c : {recompute_, splitBackward_, forwardOnly_, balanceActivations_})
    snapshot(c);
  for (QLineEdit* e :
       {rankSpeed_, rankMemory_, topology_, mapping_, tokenSlices_, seqLengths_, stageGraph_})
    snapshot(e);
  loading_ = false;
  boundaries_ = QString::fromStdString(s.boundaries);
  rerunnable_ = true;
  simulate_.reset();
  notice_->setVisible(false);
  simulateButton_->setVisible(false);
  fitButton_->setVisible(false);
  if (!s.scheduleFile.empty()) {
    notice_->setText("Schedule from " + QString::fromStdString(s.scheduleFile) +
                     " (its stages and micro-batches).");
    notice_->setVisible(true);
  }
  rerunTimer_->stop();  // showing a run is no change to rerun
  refresh();
  revalidate();
}

runtime::RunPlanRequest PlanPanel::request() const {
  runtime::RunPlanRequest r = shown_;
  // A rerun is a new run: named after its knobs and writing its own config.
  r.name.clear();
  r.configJson.clear();
  runtime::PlanSpec& s = r.spec;
  if (touched(schedule_)) s.schedule = nameOf(schedule_);
  if (touched(stages_)) s.stages = stages_->value();
  if (touched(microbatches_)) s.microbatches = microbatches_->value();
  if (touched(chunks_)) s.chunks = chunks_->value();
  if (touched(layers_) || touched(stages_) || touched(chunks_)) {
    if (layers_->value() > 0)
      s.layers = layers_->value();
    else if (!s.layers || *s.layers != stages_->value() * chunks_->value())
      s.layers.reset();  // "P·V" of the shape on screen
  }
  if (touched(steps_)) s.steps = steps_->value();
  s.boundaries = boundaries_.toStdString();
  if (touched(backend_))
    r.backend = runtime::parseBackend(nameOf(backend_)).value_or(runtime::Backend::Sim);
  if (touched(model_))
    r.exec.model.block =
        nameOf(model_) == "mlp" ? runtime::BlockType::Mlp : runtime::BlockType::Transformer;
  if (touched(hidden_)) r.exec.model.hidden = hidden_->value();
  if (touched(optimizer_))
    r.exec.optimizer.kind =
        nameOf(optimizer_) == "sgd" ? runtime::OptimizerKind::Sgd : runtime::OptimizerKind::Adam;
  // One link setting, for the simulator's plan and a model backend's emulation alike.
  if (touched(linkGbps_) || touched(latency_) || touched(backend_)) {
    const bool model = runtime::trainsModel(shown_.backend);
    std::optional<double> gbps = model ? shown_.exec.linkGbps : shown_.spec.uniform.linkGbps;
    double latency = model ? shown_.exec.linkLatencyUs : shown_.spec.uniform.linkLatencyUs;
    if (touched(linkGbps_))
      gbps = linkGbps_->value() > 0 ? std::optional<double>(linkGbps_->value()) : std::nullopt;
    if (touched(latency_)) latency = latency_->value();
    s.uniform.linkGbps = r.exec.linkGbps = gbps;
    s.uniform.linkLatencyUs = r.exec.linkLatencyUs = latency;
  }
  if (touched(actMb_)) s.uniform.actMb = actMb_->value();
  if (touched(fwd_)) s.uniform.fwdUs = fwd_->value();
  if (touched(bwd_)) s.uniform.bwdUs = bwd_->value();
  if (touched(wgrad_)) s.uniform.wgradUs = wgrad_->value();
  if (touched(sync_))
    s.optimizerSync =
        runtime::parseOptimizerSync(nameOf(sync_)).value_or(runtime::OptimizerSync::Barrier);
  if (touched(recompute_)) s.recompute = recompute_->isChecked();
  if (touched(splitBackward_)) s.splitBackward = splitBackward_->isChecked();
  if (touched(forwardOnly_)) s.forwardOnly = forwardOnly_->isChecked();
  if (touched(balanceActivations_)) s.balanceActivations = balanceActivations_->isChecked();
  if (touched(rankSpeed_)) s.rankSpeed = numbersIn(rankSpeed_->text());
  if (touched(rankMemory_)) s.rankMemoryGb = numbersIn(rankMemory_->text());
  if (touched(dataParallel_)) s.dataParallel = dataParallel_->value();
  if (touched(maxDeferredW_)) s.maxDeferredW = maxDeferredW_->value();
  if (touched(topology_)) s.topology = topology_->text().trimmed().toStdString();
  if (touched(interGbps_))
    s.interGbps =
        interGbps_->value() > 0 ? std::optional<double>(interGbps_->value()) : std::nullopt;
  if (touched(interLatency_)) s.interLatencyUs = interLatency_->value();
  if (touched(mapping_)) s.mapping = mapping_->text().trimmed().toStdString();
  if (touched(partition_)) s.partition = nameOf(partition_) == "memory" ? "memory" : "";
  if (touched(timeSlack_)) s.timeSlack = timeSlack_->value();
  if (touched(frozenUs_)) s.frozenUs = frozenUs_->value();
  // The placement only means something with frozen work (--fill alone is refused).
  if (touched(fill_) || touched(frozenUs_)) s.fill = s.frozenUs > 0 ? nameOf(fill_) : "";
  if (touched(stageGraph_)) s.stageGraph = stageGraph_->text().trimmed().toStdString();
  if (touched(a2aMb_)) s.a2aMb = a2aMb_->value();
  // The placement only means something with the work (--a2a, --fetch alone are refused).
  if (touched(a2a_) || touched(a2aMb_)) s.a2a = s.a2aMb > 0 ? nameOf(a2a_) : "";
  if (touched(fetchMb_)) s.fetchMb = fetchMb_->value();
  if (touched(fetch_) || touched(fetchMb_)) s.fetch = s.fetchMb > 0 ? nameOf(fetch_) : "";
  if (touched(weightVersions_))
    s.weightVersions = nameOf(weightVersions_) == "stash" ? "" : nameOf(weightVersions_);
  if (touched(tokenSlices_)) s.tokenSlices = tokenSlices_->text().trimmed().toStdString();
  if (touched(seqLengths_)) s.seqLengths = seqLengths_->text().trimmed().toStdString();
  // The grouping sets the count: a count from a run without sequences would be refused.
  if (!s.seqLengths.empty()) s.microbatches.reset();
  if (touched(microbatching_)) s.microbatching = nameOf(microbatching_);
  return r;
}

void PlanPanel::setNotRerunnable(const QString& why,
                                 const std::optional<runtime::RunPlanRequest>& simulate,
                                 bool canFit) {
  rerunTimer_->stop();
  rerunnable_ = false;
  simulate_ = simulate;
  notice_->setText(why);
  notice_->setVisible(true);
  simulateButton_->setVisible(simulate.has_value());
  fitButton_->setVisible(canFit);
  refresh();
}

void PlanPanel::showRunError(const QString& message) {
  const std::string text = message.toStdString();
  showProblem(KnobProblem{text, knobNamedIn(text)});
}

void PlanPanel::revalidate() {
  std::vector<std::string> refusals;
  const runtime::RunPlanRequest shown = request();
  showProblem(checkRequest(shown, unavailable(shown.backend), &refusals));
  describeBackendEntries(refusals);
}

QWidget* PlanPanel::widgetFor(Knob knob) const {
  switch (knob) {
    case Knob::None:
      return nullptr;
    case Knob::Schedule:
      return schedule_;
    case Knob::Stages:
      return stages_;
    case Knob::Microbatches:
      return microbatches_;
    case Knob::Chunks:
      return chunks_;
    case Knob::Layers:
      return layers_;
    case Knob::Steps:
      return steps_;
    case Knob::Backend:
      return backend_;
    case Knob::Model:
      return model_;
    case Knob::Hidden:
      return hidden_;
    case Knob::Optimizer:
      return optimizer_;
    case Knob::LinkGbps:
      return linkGbps_;
    case Knob::LinkLatency:
      return latency_;
    case Knob::ActMb:
      return actMb_;
    case Knob::FwdUs:
      return fwd_;
    case Knob::BwdUs:
      return bwd_;
    case Knob::WgradUs:
      return wgrad_;
    case Knob::SplitBackward:
      return splitBackward_;
    case Knob::BalanceActivations:
      return balanceActivations_;
    case Knob::ForwardOnly:
      return forwardOnly_;
    case Knob::RankSpeed:
      return rankSpeed_;
    case Knob::RankMemory:
      return rankMemory_;
    case Knob::DataParallel:
      return dataParallel_;
    case Knob::Topology:
      return topology_;
    case Knob::InterGbps:
      return interGbps_;
    case Knob::Mapping:
      return mapping_;
    case Knob::Frozen:
      return frozenUs_;
    case Knob::StageGraph:
      return stageGraph_;
    case Knob::AllToAll:
      return a2aMb_;
    case Knob::EmbeddingFetch:
      return fetchMb_;
    case Knob::WeightVersions:
      return weightVersions_;
    case Knob::Sequences:
      return seqLengths_->text().trimmed().isEmpty() ? tokenSlices_ : seqLengths_;
    case Knob::Partition:
      return partition_;
  }
  return nullptr;
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
  error_->setText(problem ? QString::fromStdString(problem->message) : QString());
  error_->setVisible(problem.has_value());
  updateRunEnabled();
}

}  // namespace ps::ui
