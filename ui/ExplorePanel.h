#pragma once
// The Explore dock (BaPipe, DAPPLE's planner): sweeps schedules × micro-batches × chunks ×
// partition around the Plan panel's model and cluster (runtime/run/Explore, off the GUI thread),
// shows the candidates as a time-per-micro-batch vs memory plot with its Pareto front and as a
// ranked table; a click on a point or a row loads that plan (candidateChosen). Synthesise searches
// a schedule of its own under the plan's memory caps (runtime/synth) and shows it, a diamond,
// against the generators under the same caps, the cap a dashed line (ExplorePanelSynth.cpp).

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

#include "runtime/run/Explore.h"
#include "runtime/run/RunPlan.h"
#include "runtime/synth/Synthesise.h"
#include "ui/JobTracker.h"
#include "ui/PlanPanel.h"  // Q_DECLARE_METATYPE(RunPlanRequest), for the signal

class QLabel;
class QPushButton;
class QTableWidget;

namespace ps::ui {

class ParetoPlot;

class ExplorePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ExplorePanel(QWidget* parent = nullptr);
  ~ExplorePanel() override;

  // Sweeps around `base`: its schedule's knobs are varied, its costs, links and ranks kept.
  void explore(const runtime::RunPlanRequest& base);
  bool busy() const { return jobs_.busy(); }
  const std::optional<runtime::ExploreResult>& result() const { return result_; }
  // Synthesises a schedule for `base`'s shape, costs and caps (runtime/synth, off the GUI thread).
  void synthesise(const runtime::RunPlanRequest& base);
  const std::optional<runtime::synth::SynthResult>& synthResult() const { return synth_; }
  // Loads candidate `index` of the ranked list (or of Synthesise's rows), as a click on it does.
  void choose(int index);
  ParetoPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }

 signals:
  void exploreRequested();  // the Explore button: answered with explore(the Plan panel's plan)
  void synthRequested();    // the Synthesise button: answered with synthesise(the same)
  void candidateChosen(const ps::runtime::RunPlanRequest& request);
  void finished();  // a sweep's result (or error) is shown

 private:
  void showResult(Result<runtime::ExploreResult> result);
  void showSynth(Result<runtime::synth::SynthResult> result);
  void fillSynthTable(const runtime::synth::SynthResult& s);
  void chooseSynth(int row);
  void setBusy(const QString& status);

  QPushButton* button_ = nullptr;
  QPushButton* synthButton_ = nullptr;
  QLabel* status_ = nullptr;
  ParetoPlot* plot_ = nullptr;
  QTableWidget* table_ = nullptr;
  runtime::RunPlanRequest base_;
  runtime::ExploreSpec spec_;
  std::optional<runtime::ExploreResult> result_;
  runtime::synth::SynthRequest synthRequest_;
  std::optional<runtime::synth::SynthResult> synth_;  // shown instead of result_ when set
  std::string synthCsv_;                              // where the shown synth schedule was saved
  JobTracker jobs_{this};  // last: cancelled and joined before the widgets go
};

}  // namespace ps::ui
