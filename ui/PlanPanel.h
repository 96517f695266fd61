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
  double knobValue(std::string_view key) const;  // a generic knob's spin box value
  // The uniform cost flags' knobs: a cost file or the run's own costs replace them.
  static constexpr std::string_view kCostFlagKnobs[] = {"act_mb", "fwd_us", "bwd_us", "wgrad_us",
                                                        "param_mb"};
  void updateRunEnabled();

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
  QLabel* moreSummary_ = nullptr;
  QWidget* more_ = nullptr;
  QDoubleSpinBox* latency_ = nullptr;  // the link's, shared with a model backend's emulation
  QComboBox *sync_ = nullptr, *optimizer_ = nullptr;
  KnobWidgets knobs_;               // every other plan knob, from the knob table
  PlanActions* actions_ = nullptr;  // the notice, the error and the run row
};

}  // namespace ps::ui

Q_DECLARE_METATYPE(ps::runtime::RunPlanRequest)
