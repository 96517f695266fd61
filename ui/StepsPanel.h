#pragma once
// The Steps tab of the Stats dock (issue 31, item 4): for a run of many steps, the spread of step
// time, bubble and idle causes over steps, the straggler table (who finished last, culprits and
// victims per rank; ranks that are culprits in 30 % of steps or more marked), and a row per step
// whose culprit cells are tinted. Worked out from the run's explanation when it is shown.

#include <QWidget>

#include <memory>

#include "trace/analysis/StepTable.h"
#include "trace/analysis/Stragglers.h"

class QLabel;
class QTableView;

namespace ps::ui {

struct LoadedRun;
class StepsModel;

class StepsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StepsPanel(QWidget* parent = nullptr);
  void showRun(const std::shared_ptr<const LoadedRun>& run);
  void clear();
  const StepsModel& model() const { return *model_; }
  QString summaryText() const;

 private:
  QLabel* summary_;
  QTableView* view_;
  StepsModel* model_;
};

// The summary above the table, as rich text: flagged ranks, the spread over steps and the
// straggler table (tests read it without a window).
QString stepsSummaryHtml(const trace::StepTable& table, const trace::StragglerTable& stragglers);

}  // namespace ps::ui
