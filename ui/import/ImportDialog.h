#pragma once
// File → Import: pick profiles (Nsight Systems SQLite, PyTorch profiler JSON, a torch pipelining
// CSV), their format (guessed from the files) and the clock alignment.

#include <QDialog>

#include "ui/import/ImportRequest.h"

class QComboBox;
class QDialogButtonBox;
class QLineEdit;
class QListWidget;

namespace ps::ui {

class ImportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ImportDialog(QWidget* parent = nullptr);

  void setFiles(const QStringList& files);
  ImportRequest request() const;

 private:
  void addFiles();
  void updateOk();

  QListWidget* files_ = nullptr;
  QComboBox* format_ = nullptr;
  QComboBox* align_ = nullptr;
  QLineEdit* rules_ = nullptr;
  QLineEdit* name_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace ps::ui
