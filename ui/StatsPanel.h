#pragma once
// The Stats dock: the kind legend, a preset's teaching text, the run's report (the CLI's
// `report` text with the idle time by cause and the critical path), the schedule's paper bubble
// beside the measured one with the causes of the difference, and which ops the figures cover (so an
// imported trace that is mostly OTHER work does not read as "bubble 0 %" without a word). The
// report shares the dock with the Steps tab (StepsPanel: per-step table and stragglers).

#include <QWidget>

#include <memory>

class QLabel;
class QPlainTextEdit;
class QScrollArea;

namespace ps::ui {

struct LoadedRun;
class StepsPanel;

class StatsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StatsPanel(QWidget* parent = nullptr);
  void showRun(const std::shared_ptr<const LoadedRun>& run);
  void clear();
  QString text() const;
  // A preset's figure: its title, reference and teaching paragraph above the report, shown while
  // the run shown is named `runName` (the preset's runs), hidden for any other run (an import,
  // the demo, another preset's) and for an empty title.
  void showTeaching(const QString& title, const QString& reference, const QString& paragraph,
                    const QString& runName);
  QString teachingText() const;

 private:
  QLabel* teaching_;
  QString teachingRun_;  // the run name the teaching text belongs to; empty: none
  QScrollArea* teachingScroll_;
  QPlainTextEdit* report_;
  StepsPanel* steps_;
};

// The report text the Stats dock shows for `run` (tests read it without a window).
QString statsText(const LoadedRun& run);

}  // namespace ps::ui
