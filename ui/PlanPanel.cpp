#include "ui/PlanPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStringList>

#include "runtime/cuda/CudaBackend.h"
#include "runtime/schedules/Schedule.h"

namespace ps::ui {
namespace {

QSpinBox* spin(QWidget* parent, const char* name, int lo, int hi, int value) {
  auto* s = new QSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

// The CUDA devices this process can use, asked once (the first query starts the CUDA runtime).
const runtime::CudaAvailability& cuda() {
  static const runtime::CudaAvailability availability = runtime::cudaAvailability();
  return availability;
}

// "0: NVIDIA H200 (139.8 GiB, 132 SMs)", one line per device.
QString deviceList(const runtime::CudaAvailability& a) {
  QStringList lines;
  for (const auto& d : a.devices)
    lines << QString("%1: %2 (%3 GiB, %4 SMs)")
                 .arg(d.index)
                 .arg(QString::fromStdString(d.name))
                 .arg(static_cast<double>(d.memoryBytes) / (1024.0 * 1024.0 * 1024.0), 0, 'f', 1)
                 .arg(d.smCount);
  return lines.join('\n');
}

}  // namespace

PlanPanel::PlanPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("planPanel");
  auto* form = new QFormLayout(this);
  schedule_ = new QComboBox(this);
  schedule_->setObjectName("scheduleCombo");
  // Grouped by family: a disabled header row before each group.
  auto* model = new QStandardItemModel(schedule_);
  QString family;
  for (const auto& s : runtime::scheduleRegistry()) {
    if (QString::fromStdString(s.family) != family) {
      family = QString::fromStdString(s.family);
      auto* header = new QStandardItem(family);
      header->setFlags(Qt::NoItemFlags);
      QFont f = header->font();
      f.setBold(true);
      header->setFont(f);
      model->appendRow(header);
    }
    auto* item = new QStandardItem("   " + QString::fromStdString(s.name));
    item->setData(QString::fromStdString(s.name), Qt::UserRole);
    item->setToolTip(QString::fromStdString(
        s.summary +
        (s.constraints.empty() || s.constraints == "none" ? "" : "  [" + s.constraints + "]")));
    model->appendRow(item);
  }
  schedule_->setModel(model);
  for (int i = 0; i < model->rowCount(); ++i)
    if (model->item(i)->data(Qt::UserRole).toString() == "1f1b") schedule_->setCurrentIndex(i);
  form->addRow("Schedule", schedule_);
  stages_ = spin(this, "stagesSpin", 1, 128, 4);
  microbatches_ = spin(this, "microbatchesSpin", 1, 4096, 8);
  chunks_ = spin(this, "chunksSpin", 1, 8, 1);
  layers_ = spin(this, "layersSpin", 0, 4096, 0);
  layers_->setSpecialValueText("P·V");
  steps_ = spin(this, "stepsSpin", 1, 1000, 1);
  form->addRow("Stages (ranks)", stages_);
  form->addRow("Micro-batches", microbatches_);
  form->addRow("Chunks per rank", chunks_);
  form->addRow("Layers", layers_);
  form->addRow("Steps", steps_);
  backend_ = new QComboBox(this);
  backend_->setObjectName("backendCombo");
  backend_->addItems({"sim", "cpu", "cuda"});
  if (auto* items = qobject_cast<QStandardItemModel*>(backend_->model())) {
    // cuda is offered when a device is present, and says why not otherwise.
    if (cuda().available()) {
      items->item(2)->setToolTip(deviceList(cuda()));
    } else {
      const QString reason = QString::fromStdString(cuda().reason);
      items->item(2)->setFlags(Qt::NoItemFlags);
      items->item(2)->setToolTip(reason);
      items->item(2)->setText("cuda — " + reason);
    }
  }
  form->addRow("Backend", backend_);
  model_ = new QComboBox(this);
  model_->setObjectName("modelCombo");
  model_->addItems({"transformer", "mlp"});
  form->addRow("Model (cpu, cuda)", model_);
  hidden_ = spin(this, "hiddenSpin", 8, 4096, 64);
  form->addRow("Hidden size (cpu, cuda)", hidden_);
  linkGbps_ = new QDoubleSpinBox(this);
  linkGbps_->setObjectName("linkSpin");
  linkGbps_->setRange(0, 10000);
  linkGbps_->setSpecialValueText("free");
  linkGbps_->setSuffix(" Gb/s");
  form->addRow("Link bandwidth", linkGbps_);
  rerun_ = new QCheckBox("Rerun on change", this);
  rerun_->setObjectName("rerunCheck");
  form->addRow(rerun_);
  run_ = new QPushButton("Run", this);
  run_->setObjectName("runButton");
  form->addRow(run_);
  connect(run_, &QPushButton::clicked, this, [this] { emit runRequested(request()); });
  for (QSpinBox* s : {stages_, microbatches_, chunks_, layers_, steps_, hidden_})
    connect(s, &QSpinBox::valueChanged, this, &PlanPanel::knobChanged);
  connect(linkGbps_, &QDoubleSpinBox::valueChanged, this, &PlanPanel::knobChanged);
  for (QComboBox* c : {schedule_, backend_, model_})
    connect(c, &QComboBox::currentIndexChanged, this, &PlanPanel::knobChanged);
}

void PlanPanel::knobChanged() {
  boundaries_.clear();  // a new shape invalidates hand-placed boundaries
  if (rerun_->isChecked() && run_->isEnabled()) emit runRequested(request());
}

void PlanPanel::setBoundaries(const QString& boundaries) {
  boundaries_ = boundaries;
  if (rerun_->isChecked() && run_->isEnabled()) emit runRequested(request());
}

void PlanPanel::setLayers(int layers) {
  const QSignalBlocker block(layers_);
  layers_->setValue(layers);
}

void PlanPanel::showKnobs(const std::string& schedule, int stages, int microbatches, int chunks,
                          int layers, int steps) {
  const QSignalBlocker b1(schedule_), b2(stages_), b3(microbatches_), b4(chunks_), b5(layers_),
      b6(steps_);
  const int index = schedule_->findData(QString::fromStdString(schedule), Qt::UserRole);
  if (index >= 0) schedule_->setCurrentIndex(index);
  stages_->setValue(stages);
  microbatches_->setValue(microbatches);
  chunks_->setValue(chunks);
  layers_->setValue(layers == stages * chunks ? 0 : layers);
  steps_->setValue(steps);
  boundaries_.clear();
}

void PlanPanel::setRunning(bool running) {
  run_->setEnabled(!running);
}

RunRequest PlanPanel::request() const {
  RunRequest r;
  r.spec.schedule = schedule_->currentData(Qt::UserRole).toString().toStdString();
  r.spec.stages = stages_->value();
  r.spec.microbatches = microbatches_->value();
  r.spec.chunks = chunks_->value();
  if (layers_->value() > 0) r.spec.layers = layers_->value();
  r.spec.steps = steps_->value();
  r.spec.boundaries = boundaries_.toStdString();
  r.spec.uniform.actMb = 1;
  if (linkGbps_->value() > 0) r.spec.uniform.linkGbps = linkGbps_->value();
  r.backend = backend_->currentText().section(' ', 0, 0);
  r.model = model_->currentText();
  r.hidden = hidden_->value();
  return r;
}

}  // namespace ps::ui
