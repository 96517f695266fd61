#include "ui/timeline/TimelinePanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "ui/timeline/TimelineView.h"

namespace ps::ui {

TimelinePanel::TimelinePanel(QWidget* parent) : QWidget(parent) {
  setObjectName("timelinePanel");
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->setSpacing(2);
  header_ = new QHBoxLayout;
  header_->setContentsMargins(4, 2, 4, 0);
  title_ = new QLabel("No run", this);
  title_->setObjectName("timelineTitle");
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  // A long run name gives way to the toolbar rather than widening the window.
  title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header_->addWidget(title_, 1);
  outer->addLayout(header_);
  auto* body = new QHBoxLayout;
  body->setContentsMargins(0, 0, 0, 0);
  body->setSpacing(0);
  view_ = new TimelineView(this);
  scroll_ = new QScrollBar(Qt::Vertical, this);
  scroll_->setObjectName("timelineScrollBar");
  scroll_->setRange(0, 0);
  body->addWidget(view_, 1);
  body->addWidget(scroll_);
  outer->addLayout(body, 1);
  connect(view_, &TimelineView::verticalScrollChanged, this, &TimelinePanel::syncScrollBar);
  connect(scroll_, &QScrollBar::valueChanged, view_, &TimelineView::setVerticalOffset);
  setFocusProxy(view_);
}

void TimelinePanel::syncScrollBar(int offset, int maximum, int page) {
  const QSignalBlocker block(scroll_);
  scroll_->setRange(0, maximum);
  scroll_->setPageStep(std::max(1, page));
  scroll_->setSingleStep(TimelineView::kCompute + 2 * TimelineView::kComm + TimelineView::kRowGap);
  scroll_->setValue(offset);
  scroll_->setEnabled(maximum > 0);
}

void TimelinePanel::setTitle(const QString& title) {
  title_->setText(title);
  title_->setToolTip(title);
}

QString TimelinePanel::title() const {
  return title_->text();
}

void TimelinePanel::setToolbar(QWidget* toolbar) {
  if (toolbar == toolbar_) return;
  if (toolbar_) {
    header_->removeWidget(toolbar_);
    toolbar_->deleteLater();
  }
  toolbar_ = toolbar;
  if (toolbar_) {
    toolbar_->setParent(this);
    header_->addWidget(toolbar_, 0);
    toolbar_->show();
  }
}

}  // namespace ps::ui
