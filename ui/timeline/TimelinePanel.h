#pragma once
// One timeline with what belongs to it: a header row naming the run it shows (and a slot for a
// search bar or other tools), the TimelineView and its vertical scroll bar. The app stacks two
// for a comparison (equal heights, one time axis: the app keeps their ranges in sync).

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QScrollBar;

namespace ps::ui {

class TimelineView;

class TimelinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit TimelinePanel(QWidget* parent = nullptr);

  TimelineView* view() const { return view_; }
  QScrollBar* verticalScrollBar() const { return scroll_; }
  // The header's text: which run this timeline shows.
  void setTitle(const QString& title);
  QString title() const;
  // Puts `toolbar` in the header row, right of the title (replacing one put there before, which
  // is deleted); null removes it.
  void setToolbar(QWidget* toolbar);
  QWidget* toolbar() const { return toolbar_; }

 private:
  void syncScrollBar(int offset, int maximum, int page);

  QLabel* title_ = nullptr;
  QHBoxLayout* header_ = nullptr;
  QWidget* toolbar_ = nullptr;
  TimelineView* view_ = nullptr;
  QScrollBar* scroll_ = nullptr;
};

}  // namespace ps::ui
