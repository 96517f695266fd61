#pragma once
// The plan panel: every knob of a run, shown from the run's full request so that Run reruns what
// is on screen. The knobs it draws (schedule, P, M, V, layers, steps, backend, model, link speed,
// and under "More" the link latency, optimizer sync, optimizer and every plan knob of the knob
// table, runtime/run/PlanKnobs.h) are checked as they change, with the message at the knob; the
// knobs it does not draw (costs file, seed, lr, dtype, ...) are kept from the request shown and
// rerun as they were. It only describes the run; the window runs it.

#include <QWidget>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run/RunPlan.h"
#include "ui/PlanActions.h"
#include "ui/PlanKnobWidgets.h"
#include "ui/PlanPanelCheck.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;
class QToolButton;

namespace ps::ui {

class ElidedLabel;

// The model options the app trains with unless a run says otherwise: transformer blocks of 64
// with 4 heads, Adam at lr 0.001.
runtime::CpuRunOptions appModelOptions();

class PlanPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlanPanel(QWidget* parent = nullptr);

  // What Run would run: the request shown, with the knobs on screen as they are now.
  runtime::RunPlanRequest request() const;
  // Shows every knob of `request` (a run's, from its config_json) without running anything;
  // clears the notice and any run error. Ignored while the user is turning knobs with Rerun on
  // change (a burst's first run arriving must not undo the keys typed since: "50" left as "5").
  void showRequest(const runtime::RunPlanRequest& request);
  // What an imported run (no plan to rerun) records of its plan (issue 34 item 7).
  struct ImportedFacts {
    int ranks = 0;
    std::optional<int> stages;        // stage ids seen: V = stages / ranks
    std::optional<int> microbatches;  // micro-batch ids seen
    int steps = 0;
    std::string schedule;  // as the import names it: shown when a generator has that name
  };
  // Shows `facts` in their knobs over the app's defaults and greys every other knob (a list with
  // nothing recorded shows no entry), until showRequest or a knob the user changes: a new plan
  // made from what the import knows. setNotRerunnable says why after it.
  void showImported(const ImportedFacts& facts);
  // True from a knob change with Rerun on change until its burst's last run was requested.
  bool turningKnobs() const;
  // The run shown cannot be rerun (an imported trace): Run is disabled and `why` shown, until
  // the next showRequest or a knob the user changes (a new plan). With `simulate` (a torch CSV:
  // its schedule), a "Simulate this schedule" button shows and runs that request. With `canFit`
  // (an imported profile), a "Fit plan" button shows and emits fitRequested.
  void setNotRerunnable(const QString& why,
                        const std::optional<runtime::RunPlanRequest>& simulate = std::nullopt,
                        bool canFit = false);
  // A run of the shown knobs failed: its message at the knob it names, Run disabled until a
  // knob changes.
  void showRunError(const QString& message);
  // The check of the knobs on screen: none when they are valid.
  const std::optional<KnobProblem>& problem() const { return problem_; }

  // The cut the knobs on screen ask the stage editor for (issue 34 item 4): `layers` layers (the
  // Layers knob; at "P·V", one per stage) in `stages` stages (the schedule's stages at P, M and
  // V). 0 where the knobs do not say: a cost file's layers, a CSV schedule's stages.
  struct Shape {
    int layers = 0;
    int stages = 0;
  };
  Shape shape() const;

  // Stage boundaries chosen in the editor ("" = balanced by the partitioner). Never runs: the
  // caller runs the result.
  void setBoundaries(const QString& boundaries);
  // Sets the layer count without triggering a rerun (the editor's layers).
  void setLayers(int layers);
  // While a run is in flight the Run button is disabled (rerun-on-change still supersedes it).
  void setRunning(bool running);
  QAction* runAction() const { return actions_->runAction(); }  // Run, Ctrl+R, F5

  // The widget of the knob table's row `key` (a generic knob under "More"); null when the panel
  // draws that knob itself or not at all.
  QWidget* knobWidget(std::string_view key) const;

  // The "More" knobs shown (they open by themselves when one of them is in error).
  bool moreOpen() const;
  void setMoreOpen(bool open);

  static constexpr int kRerunDelayMs = PlanActions::kRerunDelayMs;

 signals:
  void runRequested(const ps::runtime::RunPlanRequest& request);
  // Balance stages was pressed: boundaries are cleared, run request() to let the partitioner cut.
  void balanceRequested();
  // The user changed a knob that moves the stages (Layers, P, V, the schedule, ...): the stage
  // editor follows shape() before any run.
  void shapeChanged();
  // Fit plan was pressed (an imported run shown): the window fits, replays and compares.
  void fitRequested();

 private:
  void buildKnobs();
  void buildMore();
  void buildActions();
  void userChanged(bool shape);
  void refresh();  // visibility, hints, enabled states, summary
  void revalidate();
  void showProblem(const std::optional<KnobProblem>& problem);
  QWidget* widgetFor(Knob knob) const;
  bool layersAtPV() const;
  bool trainsModel() const;
  QString moreSummary() const;
  void showTokenSlices();
  double knobValue(std::string_view key) const;  // a generic knob's spin box value
  // The uniform cost flags' knobs: a cost file or the run's own costs replace them.
  static constexpr std::string_view kCostFlagKnobs[] = {"act_mb", "fwd_us", "bwd_us", "wgrad_us",
                                                        "param_mb"};
  void updateRunEnabled();
  void greyUnknown();  // refresh's part while an import is shown

  // Which knobs show an import's records (showImported); none while a plan is shown.
  struct ImportKnown {
    bool schedule = false, ranks = false, microbatches = false, chunks = false, steps = false;
  };
  std::optional<ImportKnown> imported_;

  runtime::RunPlanRequest shown_;  // the request shown: what untouched knobs rerun as
  QString boundaries_;
  bool loading_ = false;  // filling the widgets: no user change
  bool running_ = false;
  bool rerunnable_ = true;
  std::optional<KnobProblem> problem_;
  std::optional<runtime::RunPlanRequest> simulate_;

  QFormLayout* form_ = nullptr;
  QComboBox *schedule_ = nullptr, *backend_ = nullptr, *model_ = nullptr;
  QSpinBox *stages_ = nullptr, *microbatches_ = nullptr, *chunks_ = nullptr, *layers_ = nullptr,
           *steps_ = nullptr, *hidden_ = nullptr;
  QLabel* layersHint_ = nullptr;
  QDoubleSpinBox* linkGbps_ = nullptr;
  QToolButton* moreToggle_ = nullptr;
  ElidedLabel* moreSummary_ = nullptr;
  QWidget* more_ = nullptr;
  QDoubleSpinBox* latency_ = nullptr;  // the link's, shared with a model backend's emulation
  QComboBox *sync_ = nullptr, *optimizer_ = nullptr;
  KnobWidgets knobs_;               // every other plan knob, from the knob table
  PlanActions* actions_ = nullptr;  // the notice, the error and the run row
};

}  // namespace ps::ui

Q_DECLARE_METATYPE(ps::runtime::RunPlanRequest)
