#pragma once
// The main window. It grows into the timeline/memory/links workspace of the app issue; today it
// opens a trace file and shows the report of its latest run.

#include <QMainWindow>

class QPlainTextEdit;

namespace ps::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Loads the latest run of `path`; on failure shows the store's message and returns false.
  bool openTrace(const QString& path, bool showErrorDialog = true);
  QString lastError() const { return lastError_; }

 private:
  void chooseAndOpen();
  QPlainTextEdit* report_ = nullptr;
  QString lastError_;
};

}  // namespace ps::ui
