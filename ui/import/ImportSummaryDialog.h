#pragma once
// What an import recognised: ranks, steps, ops by kind, unknown labels, clock offsets and the
// readers' warnings, so the user can see at once whether their naming was understood.

#include <QDialog>

namespace ps::ui {

class ImportSummaryDialog : public QDialog {
  Q_OBJECT
 public:
  ImportSummaryDialog(const QString& summary, QWidget* parent = nullptr);
};

}  // namespace ps::ui
