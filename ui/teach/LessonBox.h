#pragma once
// The Teach dock's lesson: the classic schedule's two or three steps (Lessons.h) for the run on
// screen, with Back and Next. Showing a step asks for its ops to be highlighted on the timeline
// (stepShown); before the first step and for a schedule without a lesson, it says where the
// lessons are.

#include <QGroupBox>

#include <string>

#include "ui/teach/Lessons.h"

class QLabel;
class QPushButton;

namespace ps::ui {

class LessonBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit LessonBox(QWidget* parent = nullptr);
  // The run's schedule: its lesson, back before its first step.
  void setSchedule(const std::string& schedule);
  const Lesson* lesson() const { return lesson_; }
  int step() const { return step_; }  // -1 before the first
  void next();
  void back();
  // Back before the first step without telling anyone (the replay took the timeline over).
  void restart();
  QString text() const;

 signals:
  // A step was shown (null: none, nothing to highlight).
  void stepShown(const ps::ui::LessonStep* step);

 private:
  void showStep(int step);

  const Lesson* lesson_ = nullptr;
  int step_ = -1;
  QLabel *title_, *text_;
  QPushButton *back_, *next_;
};

}  // namespace ps::ui
