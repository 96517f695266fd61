#include "ui/teach/LessonBox.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace ps::ui {

LessonBox::LessonBox(QWidget* parent) : QGroupBox("Lesson", parent) {
  setObjectName("teachLesson");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  title_ = new QLabel(this);
  title_->setObjectName("teachLessonTitle");
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  layout->addWidget(title_);
  text_ = new QLabel(this);
  text_->setObjectName("teachLessonText");
  text_->setWordWrap(true);
  text_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  // A short dock scrolls the text rather than cutting it.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(text_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // Two lines at least, never more than the dock gives: the timeline keeps its height.
  scroll->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
  scroll->setMinimumHeight(2 * fontMetrics().height());
  layout->addWidget(scroll, 1);
  auto* buttons = new QHBoxLayout;
  back_ = new QPushButton("◀ Back", this);
  back_->setObjectName("teachLessonBack");
  next_ = new QPushButton("Start ▶", this);
  next_->setObjectName("teachLessonNext");
  buttons->addWidget(back_);
  buttons->addStretch(1);
  buttons->addWidget(next_);
  layout->addLayout(buttons);
  connect(back_, &QPushButton::clicked, this, &LessonBox::back);
  connect(next_, &QPushButton::clicked, this, &LessonBox::next);
  setSchedule({});
}

void LessonBox::setSchedule(const std::string& schedule) {
  lesson_ = lessonFor(schedule);
  step_ = -1;
  showStep(-1);
}

void LessonBox::next() {
  if (lesson_ && step_ + 1 < static_cast<int>(lesson_->steps.size())) showStep(step_ + 1);
}

void LessonBox::back() {
  if (step_ >= 0) showStep(step_ - 1);
}

void LessonBox::restart() {
  if (step_ < 0) return;
  const QSignalBlocker block(this);
  showStep(-1);
}

QString LessonBox::text() const {
  return text_->text();
}

void LessonBox::showStep(int step) {
  step_ = step;
  if (!lesson_) {
    title_->setText("Lessons");
    text_->setText(
        "Each classic schedule has a lesson of a few steps that point at its timeline: open one "
        "from Papers (classic): GPipe, 1F1B, Interleaved 1F1B, ZB-H1, DualPipeV.");
    back_->setEnabled(false);
    next_->setEnabled(false);
    next_->setText("Start ▶");
    emit stepShown(nullptr);
    return;
  }
  const int count = static_cast<int>(lesson_->steps.size());
  if (step < 0) {
    title_->setText(QString::fromStdString(lesson_->title));
    text_->setText(QString("%1 steps. Each names ops of this run and highlights them on the "
                           "timeline. Press Start.")
                       .arg(count));
  } else {
    title_->setText(QString("%1 · step %2 of %3")
                        .arg(QString::fromStdString(lesson_->title))
                        .arg(step + 1)
                        .arg(count));
    text_->setText(QString::fromStdString(lesson_->steps[step].text));
  }
  back_->setEnabled(step >= 0);
  next_->setEnabled(step + 1 < count);
  next_->setText(step < 0 ? "Start ▶" : "Next ▶");
  emit stepShown(step < 0 ? nullptr : &lesson_->steps[step]);
}

}  // namespace ps::ui
