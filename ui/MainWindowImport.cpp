// File → Import of the main window: the dialog, the worker job, progress and the summary.

#include <QProgressDialog>
#include <QStatusBar>

#include "ui/MainWindow.h"
#include "ui/import/ImportDialog.h"
#include "ui/import/ImportJob.h"
#include "ui/import/ImportSummaryDialog.h"

namespace ps::ui {

void MainWindow::chooseAndImport(const QStringList& files) {
  ImportDialog dialog(this);
  if (!files.isEmpty()) dialog.setFiles(files);
  if (dialog.exec() != QDialog::Accepted) return;
  importTraces(dialog.request());
}

bool MainWindow::importBusy() const {
  return importJob_->busy();
}

void MainWindow::importTraces(const ImportRequest& request, bool dialogs) {
  importDialogs_ = dialogs;
  importSummary_.clear();
  if (path_.isEmpty()) {
    fail("no open trace file to import into", dialogs);
    return;
  }
  if (!importProgress_) {
    importProgress_ = new QProgressDialog("Importing…", "Cancel", 0, 100, this);
    importProgress_->setObjectName("importProgress");
    importProgress_->setWindowTitle("Import traces");
    importProgress_->setMinimumDuration(300);
    importProgress_->setAutoClose(false);
    importProgress_->setAutoReset(false);
    connect(importProgress_, &QProgressDialog::canceled, importJob_, &ImportJob::cancel);
    connect(importJob_, &ImportJob::progress, this, [this](const QString& stage, int percent) {
      importProgress_->setLabelText(QString("Importing: %1").arg(stage));
      if (importDialogs_) importProgress_->setValue(percent);
    });
  }
  // Shown only if the import takes longer than the minimum duration: setValue(minimum) starts
  // QProgressDialog's timer, and reset() when it ends stops it (a quick import never flashes).
  importProgress_->reset();
  importProgress_->setLabelText("Importing: read");
  if (dialogs) importProgress_->setValue(0);
  statusBar()->showMessage(QString("importing %1 file(s)…").arg(request.files.size()));
  importJob_->start(request, path_);
}

void MainWindow::endImportProgress() {
  // hide() alone leaves the dialog's show timer running: an import that ended within the
  // minimum duration had its progress dialog pop up afterwards, stuck at its last value.
  importProgress_->reset();
  importProgress_->hide();
}

void MainWindow::onImportFinished(qint64 id, const QString& summary) {
  endImportProgress();
  importSummary_ = summary;
  if (!listRuns(false, id)) return;
  showRun(id);
  statusBar()->showMessage(QString("run %1 imported").arg(id), 5000);
  // Non-modal: what was recognised stays beside the timeline while the user looks.
  auto* box = new ImportSummaryDialog(summary, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->show();
}

void MainWindow::onImportFailed(const QString& message) {
  endImportProgress();
  statusBar()->showMessage(message);
  fail(message, importDialogs_);
}

}  // namespace ps::ui
