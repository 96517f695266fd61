#pragma once
// Rows as wide as their list, so that a long text is elided to the list's width instead of
// running off to the right under a horizontal scrollbar (the run history, the import dialog's
// files).

#include <QListWidget>
#include <QStyledItemDelegate>

namespace ps::ui {

class ListWidthDelegate : public QStyledItemDelegate {
 public:
  explicit ListWidthDelegate(QListWidget* list) : QStyledItemDelegate(list), list_(list) {}
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(list_->viewport()->width());
    return size;
  }

 private:
  QListWidget* list_;
};

}  // namespace ps::ui
