#pragma once
// File → Import: pick files, their format (every entry of trace/import/ImportFormats.h, guessed
// from the files), the clock alignment, label rules, the files' ranks (where they do not say),
// threads as ranks and the run's name.

#include <QDialog>

#include "ui/import/ImportRequest.h"

class QCheckBox;
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
  void updateFormatOptions();
  QStringList files() const;

  QListWidget* files_ = nullptr;
  QComboBox* format_ = nullptr;
  QComboBox* align_ = nullptr;
  QLineEdit* rules_ = nullptr;
  QLineEdit* name_ = nullptr;
  QLineEdit* ranks_ = nullptr;
  QCheckBox* threadsAsRanks_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace ps::ui
