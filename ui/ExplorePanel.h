#pragma once
// The Explore dock (BaPipe, DAPPLE's planner): sweeps schedules × micro-batches × chunks ×
// partition around the Plan panel's model and cluster (runtime/run/Explore, off the GUI thread),
// shows the candidates as a time-per-micro-batch vs memory plot with its Pareto front and as a
// ranked table; a click on a point or a row loads that plan (candidateChosen).

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

#include "runtime/run/Explore.h"
#include "runtime/run/RunPlan.h"
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
  // Loads candidate `index` of the ranked list, as a click on it does.
  void choose(int index);
  ParetoPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }

 signals:
  void exploreRequested();  // the Explore button: answered with explore(the Plan panel's plan)
  void candidateChosen(const ps::runtime::RunPlanRequest& request);
  void finished();  // a sweep's result (or error) is shown

 private:
  void showResult(Result<runtime::ExploreResult> result);

  QPushButton* button_ = nullptr;
  QLabel* status_ = nullptr;
  ParetoPlot* plot_ = nullptr;
  QTableWidget* table_ = nullptr;
  runtime::RunPlanRequest base_;
  runtime::ExploreSpec spec_;
  std::optional<runtime::ExploreResult> result_;
  JobTracker jobs_{this};  // last: cancelled and joined before the widgets go
};

}  // namespace ps::ui
