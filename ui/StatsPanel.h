#pragma once
// The Stats dock: the kind legend, the run's report (the CLI's `report` text), the schedule's
// paper bubble beside the measured one, and which ops the figures cover (so an imported trace
// that is mostly OTHER work does not read as "bubble 0 %" without a word).

#include <QWidget>

#include <memory>

class QPlainTextEdit;

namespace ps::ui {

struct LoadedRun;

class StatsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StatsPanel(QWidget* parent = nullptr);
  void showRun(const std::shared_ptr<const LoadedRun>& run);
  void clear();
  QString text() const;

 private:
  QPlainTextEdit* report_;
};

// The report text the Stats dock shows for `run` (tests read it without a window).
QString statsText(const LoadedRun& run);

}  // namespace ps::ui
