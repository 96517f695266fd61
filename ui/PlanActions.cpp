#include "ui/PlanActions.h"

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/PlanPanelTips.h"
#include "ui/PlanPanelWidgets.h"

namespace ps::ui {
using panelwidgets::button;

PlanActions::PlanActions(QWidget* parent) : QWidget(parent) {
  setObjectName("planActions");
  notice_ = panelwidgets::note(this, "planNotice");
  notice_->setVisible(false);
  simulate_ = button(this, "simulateButton", "Simulate this schedule",
                     "Simulate the schedule of this CSV with the per-layer costs, as a "
                     "new run that can be rerun.");
  simulate_->setVisible(false);
  connect(simulate_, &QPushButton::clicked, this, &PlanActions::simulateClicked);
  fit_ = button(this, "fitPlanButton", "Fit plan",
                "Fit a plan to this imported run (its schedule, stage costs, links and "
                "memory), replay it and compare: then every knob makes a what-if of the "
                "recorded run.");
  fit_->setVisible(false);
  connect(fit_, &QPushButton::clicked, this, &PlanActions::fitClicked);
  error_ = panelwidgets::errorLabel(this, "planError");
  panelwidgets::colourError(error_, palette());
  rerun_ = new QCheckBox("Rerun on change", this);
  rerun_->setObjectName("rerunCheck");
  rerun_->setToolTip(tips::kRerun);
  run_ = button(this, "runButton", "Run", tips::kRun);
  run_->setDefault(true);
  connect(run_, &QPushButton::clicked, this, [this] {
    timer_->stop();  // this click is the run a pending rerun would have made
    emit runClicked();
  });
  runAction_ = new QAction("&Run", this);
  runAction_->setObjectName("runAction");
  runAction_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
  runAction_->setStatusTip("Run the plan on screen (the Plan dock's Run)");
  connect(runAction_, &QAction::triggered, run_, &QPushButton::click);
  balance_ = button(this, "balanceButton", "Balance", "");  // the panel sets its tooltip
  connect(balance_, &QPushButton::clicked, this, [this] {
    timer_->stop();
    emit balanceClicked();
  });

  auto* root = new QVBoxLayout(this);
  root->setContentsMargins(0, 0, 0, 0);
  root->setSpacing(4);
  for (QWidget* w : {static_cast<QWidget*>(notice_), static_cast<QWidget*>(simulate_),
                     static_cast<QWidget*>(fit_), static_cast<QWidget*>(error_)})
    root->addWidget(w);
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(rerun_);
  runRow->addStretch(1);
  runRow->addWidget(balance_);
  runRow->addWidget(run_);
  // A narrow dock may squeeze the buttons below the style's 80 px minimum; their text still fits.
  balance_->setMinimumWidth(balance_->fontMetrics().horizontalAdvance(balance_->text()) + 16);
  run_->setMinimumWidth(run_->fontMetrics().horizontalAdvance(run_->text()) + 24);
  root->addLayout(runRow);

  timer_ = new QTimer(this);
  timer_->setObjectName("rerunTimer");
  timer_->setSingleShot(true);
  timer_->setInterval(kRerunDelayMs);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (pending_ && rerun_->isChecked()) emit burstEnded();
    pending_ = false;
  });
}

void PlanActions::showNotice(const QString& text, bool simulate, bool fit) {
  notice_->setText(text);
  notice_->setVisible(!text.isEmpty());
  simulate_->setVisible(simulate);
  fit_->setVisible(fit);
}

void PlanActions::hideNotice() {
  notice_->setVisible(false);
  simulate_->setVisible(false);
}

void PlanActions::setRunEnabled(bool enabled) {
  run_->setEnabled(enabled);
  runAction_->setEnabled(enabled);
}

bool PlanActions::knobChanged(bool canRun) {
  if (!rerun_->isChecked()) return false;
  // The first change after a quiet spell runs at once (a knob turned once shows its picture
  // without waiting); the changes that follow within kRerunDelayMs of each other are one burst,
  // run once when it ends (a superseded run is cancelled, its picture never shown).
  const bool burstStarts = !timer_->isActive();
  timer_->start();
  pending_ = !(burstStarts && canRun);
  return !pending_;
}

void PlanActions::stopRerun() {
  timer_->stop();
}

bool PlanActions::turningKnobs() const {
  return timer_->isActive() || pending_;
}

void PlanActions::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange && error_)
    panelwidgets::colourError(error_, palette());
  QWidget::changeEvent(event);
}

}  // namespace ps::ui
