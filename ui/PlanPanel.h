#pragma once
// The plan panel: every knob of a run (schedule, stages, micro-batches, chunks, layers, backend,
// link speed, steps, model size) with a Run button and a "rerun on change" toggle. It only
// describes the run; MainWindow runs it.

#include <QWidget>

#include "runtime/run/PlanBuilder.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QPushButton;
class QSpinBox;

namespace ps::ui {

struct RunRequest {
  runtime::PlanSpec spec;
  QString backend;  // "sim" | "cpu" | "cuda"
  QString model;    // "mlp" | "transformer" (cpu, cuda)
  int hidden = 64;
};

class PlanPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlanPanel(QWidget* parent = nullptr);
  RunRequest request() const;
  // Stage boundaries chosen in the editor ("" = balanced by the partitioner).
  void setBoundaries(const QString& boundaries);
  // Sets the layer count without triggering a rerun (the editor's layers).
  void setLayers(int layers);
  // Shows the knobs a run was made with (from its config_json), without triggering a rerun.
  void showKnobs(const std::string& schedule, int stages, int microbatches, int chunks, int layers,
                 int steps);
  void setRunning(bool running);

 signals:
  void runRequested(const ps::ui::RunRequest& request);

 private:
  void knobChanged();
  QComboBox* schedule_;
  QSpinBox *stages_, *microbatches_, *chunks_, *layers_, *steps_, *hidden_;
  QComboBox *backend_, *model_;
  QDoubleSpinBox* linkGbps_;
  QCheckBox* rerun_;
  QPushButton* run_;
  QString boundaries_;
};

}  // namespace ps::ui
