#pragma once
// The status bar's run progress: the run's stages as they pass (RunController::progress), a busy
// indicator while a finished run loads, and Cancel while the run can still be stopped.

#include <QObject>
#include <QString>

class QProgressBar;
class QPushButton;
class QStatusBar;
class QWidget;

namespace ps::ui {

class RunController;

class RunProgress : public QObject {
  Q_OBJECT
 public:
  // Puts the bar and Cancel at the right of `bar`, both hidden until a run reports progress.
  RunProgress(QStatusBar* bar, RunController* controller);

  // The run ended and its result is being loaded: a busy bar, no Cancel.
  void loading();
  void hide();

 private:
  void show(const QString& stage, int done, int total);

  RunController* controller_;
  QProgressBar* progress_;
  QPushButton* cancel_;
};

// Quitting while a model trains would end it 'cancelled' a few steps in (issue 34 item 2): asks
// (Keep running / Stop and quit), as a tool asks before dropping work. True: stop it and quit.
bool askToStopTrainingAndQuit(QWidget* window, const RunController& controller);

}  // namespace ps::ui
