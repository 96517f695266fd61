#include "ui/teach/RevealBox.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ps::ui {

RevealBox::RevealBox(QWidget* parent) : QGroupBox("Predict, then reveal", parent) {
  setObjectName("teachReveal");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  auto* form = new QFormLayout;
  form->setContentsMargins(0, 0, 0, 0);
  // The lowest value reads as "no guess yet": a spin box cannot be empty.
  bubble_ = new QDoubleSpinBox(this);
  bubble_->setObjectName("teachGuessBubble");
  bubble_->setRange(-1, 100);
  bubble_->setDecimals(1);
  bubble_->setSuffix(" %");
  bubble_->setSpecialValueText("your guess");
  bubble_->setValue(-1);
  bubble_->setToolTip("What share of the step do you expect the ranks to sit idle?");
  form->addRow("Bubble", bubble_);
  peak_ = new QSpinBox(this);
  peak_->setObjectName("teachGuessPeak");
  peak_->setRange(0, 9999);
  peak_->setSpecialValueText("optional");
  peak_->setToolTip("The most micro-batches whose activations rank 0 holds at once");
  form->addRow("Rank 0 peak in flight", peak_);
  layout->addLayout(form);
  reveal_ = new QPushButton("Reveal", this);
  reveal_->setObjectName("teachRevealButton");
  reveal_->setToolTip(
      "Show the measured bubble, the paper's formula and how far off the guess was");
  layout->addWidget(reveal_);
  result_ = new QLabel(this);
  result_->setObjectName("teachRevealText");
  result_->setWordWrap(true);
  result_->setTextFormat(Qt::RichText);
  result_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(result_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // Two lines at least, never more than the dock gives: the timeline keeps its height.
  scroll->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
  scroll->setMinimumHeight(2 * fontMetrics().height());
  layout->addWidget(scroll, 1);
  connect(reveal_, &QPushButton::clicked, this, &RevealBox::reveal);
  setFacts({});
}

void RevealBox::setFacts(const RevealFacts& facts) {
  facts_ = facts;
  revealed_ = false;
  result_->setText("Guess first, then play the replay or press Reveal.");
}

void RevealBox::setGuess(std::optional<double> bubblePercent, std::optional<int> rank0Peak) {
  bubble_->setValue(bubblePercent.value_or(-1));
  peak_->setValue(rank0Peak.value_or(0));
}

void RevealBox::reveal() {
  RevealGuess guess;
  if (bubble_->value() >= 0) guess.bubblePercent = bubble_->value();
  if (peak_->value() > 0) guess.rank0Peak = peak_->value();
  QStringList lines;
  plain_.clear();
  for (const std::string& line : revealLines(facts_, guess)) {
    plain_ += QString::fromStdString(line) + "\n";
    // A formula or fraction ("(p-1)/(m+p-1)", "3/11") is never broken at its slash: a word
    // joiner after it (rich text ignores white-space: nowrap on a span).
    QStringList words = QString::fromStdString(line).split(' ');
    for (QString& word : words)
      word = word.toHtmlEscaped().replace("/", QString("/") + QChar(0x2060));
    lines << words.join(' ');
  }
  if (!lines.isEmpty()) lines[0] = "<b>" + lines[0] + "</b>";
  result_->setText(lines.join("<br>"));
  revealed_ = true;
  emit revealedNow();
}

QString RevealBox::resultText() const {
  return revealed_ ? plain_ : result_->text();
}

}  // namespace ps::ui
