#include "ui/RunProgress.h"

#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include "ui/RunController.h"

namespace ps::ui {

RunProgress::RunProgress(QStatusBar* bar, RunController* controller)
    : QObject(bar), controller_(controller) {
  progress_ = new QProgressBar(bar);
  progress_->setObjectName("runProgress");
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  cancel_ = new QPushButton("Cancel", bar);
  cancel_->setObjectName("cancelButton");
  cancel_->setToolTip("Stop the run in progress (it is kept as cancelled)");
  cancel_->setVisible(false);
  connect(cancel_, &QPushButton::clicked, controller_, &RunController::cancel);
  connect(controller_, &RunController::progress, this, &RunProgress::show);
  bar->addPermanentWidget(progress_);
  bar->addPermanentWidget(cancel_);
}

void RunProgress::show(const QString& stage, int done, int total) {
  progress_->setVisible(true);
  cancel_->setVisible(controller_->busy());
  progress_->setRange(0, total);
  progress_->setValue(done);
  progress_->setFormat(stage + " %v/%m");
}

void RunProgress::loading() {
  cancel_->setVisible(false);
  progress_->setRange(0, 0);  // busy indicator while the run loads
  progress_->setFormat("load");
  progress_->setVisible(true);
}

void RunProgress::hide() {
  progress_->setVisible(false);
  cancel_->setVisible(false);
}

// Quitting while a model trains would end it 'cancelled' a few steps in (issue 34 item 2): ask,
// as a tool asks before dropping work. True: stop it and quit.
bool askToStopTrainingAndQuit(QWidget* window, const RunController& controller) {
  QMessageBox ask(
      QMessageBox::Question, "PipeScope",
      "A training run is in progress" +
          (controller.trainingProgress().isEmpty() ? QString(".")
                                                   : " (" + controller.trainingProgress() + ").") +
          "\n\nQuitting stops it; the steps so far stay in the file as a cancelled run.",
      QMessageBox::NoButton, window);
  ask.setObjectName("stopTrainingQuestion");
  QPushButton* keep = ask.addButton("Keep running", QMessageBox::RejectRole);
  QPushButton* stop = ask.addButton("Stop and quit", QMessageBox::DestructiveRole);
  ask.setDefaultButton(keep);
  ask.exec();
  return ask.clickedButton() == stop;
}

}  // namespace ps::ui
