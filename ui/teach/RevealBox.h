#pragma once
// Predict, then reveal: before the replay the student types a guess of the bubble (and, if they
// like, of rank 0's peak activations in flight); Reveal shows what the run measured, the paper's
// formula with the numbers put in and the gaps (RevealText.h). A new run hides the reveal again.

#include <QGroupBox>

#include "ui/teach/RevealText.h"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace ps::ui {

class RevealBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit RevealBox(QWidget* parent = nullptr);
  // The run's facts; hides a reveal shown for the previous run (the guesses stay).
  void setFacts(const RevealFacts& facts);
  void setGuess(std::optional<double> bubblePercent, std::optional<int> rank0Peak = {});
  void reveal();
  bool revealed() const { return revealed_; }
  // What the reveal says, as plain text, one line each (before it: the prompt).
  QString resultText() const;

 signals:
  void revealedNow();

 private:
  RevealFacts facts_;
  bool revealed_ = false;
  QString plain_;
  QDoubleSpinBox* bubble_;
  QSpinBox* peak_;
  QPushButton* reveal_;
  QLabel* result_;
};

}  // namespace ps::ui
