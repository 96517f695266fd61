#include "ui/MainWindow.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>

#include "trace/analysis/ReportFormat.h"
#include "trace/analysis/RunAnalysis.h"
#include "trace/store/TraceReader.h"

namespace ps::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle("PipeScope");
  report_ = new QPlainTextEdit(this);
  report_->setObjectName("reportView");
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  report_->setPlaceholderText("Open a trace file (File → Open) to see its report.");
  setCentralWidget(report_);
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open…", QKeySequence::Open, this, &MainWindow::chooseAndOpen);
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  resize(1000, 640);
}

bool MainWindow::openTrace(const QString& path, bool showErrorDialog) {
  auto run = trace::loadRunFromFile(path.toStdString(), std::nullopt);
  if (!run) {
    lastError_ = QString::fromStdString(run.error());
    if (showErrorDialog) QMessageBox::critical(this, "Cannot open trace", lastError_);
    return false;
  }
  report_->setPlainText(QString::fromStdString(trace::reportText(trace::analyzeRun(*run))));
  setWindowTitle(QString("PipeScope — %1").arg(path));
  return true;
}

void MainWindow::chooseAndOpen() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Open trace", {}, "PipeScope traces (*.sqlite *.db);;All files (*)");
  if (!path.isEmpty()) openTrace(path);
}

}  // namespace ps::ui
