#pragma once
// The foot of the plan panel: what the run shown can do, and why not. A note on the run (an
// imported trace's "no plan to rerun", a CSV's schedule) with its "Simulate this schedule" and
// "Fit plan" buttons, the knobs' error, and the run row (Rerun on change, Balance, Run). It keeps
// Rerun on change's burst rule; the panel decides whether its knobs can run.

#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QPushButton;
class QTimer;

namespace ps::ui {

class PlanActions : public QWidget {
  Q_OBJECT
 public:
  // Rerun on change: the first change runs at once, the rest of a burst (changes less than this
  // apart) once it is this long past its last change.
  static constexpr int kRerunDelayMs = 400;

  explicit PlanActions(QWidget* parent = nullptr);

  // Shows `text` above the buttons (hidden when empty), with the Simulate and Fit buttons or not.
  void showNotice(const QString& text, bool simulate = false, bool fit = false);
  // Hides the note and Simulate; Fit stays, for the imported run still selected.
  void hideNotice();
  QLabel* errorLabel() const { return error_; }
  QPushButton* runButton() const { return run_; }
  // Run for the menus, Ctrl+R and F5: enabled with the button, presses it.
  QAction* runAction() const { return runAction_; }
  void setRunEnabled(bool enabled);
  QPushButton* balanceButton() const { return balance_; }

  // A knob changed. With Rerun on change, true when this change runs now: the first of a burst,
  // when `canRun`. The burst's later changes run once it ends (burstEnded).
  bool knobChanged(bool canRun);
  // Forgets the burst's timer: a run is shown, or the user ran it by hand.
  void stopRerun();
  // True from a knob change with Rerun on change until its burst's last run was requested.
  bool turningKnobs() const;

 signals:
  void runClicked();
  void balanceClicked();
  void simulateClicked();
  void fitClicked();
  // A burst ended with a change not run yet: run the knobs if they can run.
  void burstEnded();

 protected:
  void changeEvent(QEvent* event) override;  // the error's red follows the palette

 private:
  QLabel *notice_ = nullptr, *error_ = nullptr;
  QPushButton *simulate_ = nullptr, *fit_ = nullptr, *run_ = nullptr, *balance_ = nullptr;
  QCheckBox* rerun_ = nullptr;
  QAction* runAction_ = nullptr;
  QTimer* timer_ = nullptr;
  bool pending_ = false;  // a change in the current burst has not been run yet
};

}  // namespace ps::ui
