#include "ui/import/ImportController.h"

#include <QProgressDialog>

#include "ui/import/ImportDialog.h"
#include "ui/import/ImportJob.h"
#include "ui/import/ImportSummaryDialog.h"
#include "ui/import/ImportWords.h"

namespace ps::ui {

ImportController::ImportController(QWidget* window)
    : QObject(window), window_(window), job_(new ImportJob(this)) {
  connect(job_, &ImportJob::finished, this, [this](qint64 id, const QString& summary) {
    endProgress();
    summary_ = summary;
    emit imported(id, summary);
    if (advisesThreadsAsRanks(summary))
      emit status(QString("one process ran its compute on several threads: import again with "
                          "'%1' (the import summary has a button for it)")
                      .arg(importlabels::kThreadsAsRanks));
  });
  connect(job_, &ImportJob::failed, this, [this](const QString& message) {
    endProgress();
    const QString words = importWords(message);  // the dialog's controls, not the CLI's flags
    emit status(words);
    emit failed(words, dialogs_);
  });
}

void ImportController::choose(const QStringList& files, const QString& into) {
  ImportDialog dialog(window_);
  if (!files.isEmpty()) dialog.setFiles(files);
  if (dialog.exec() != QDialog::Accepted) return;
  start(dialog.request(), into);
}

bool ImportController::busy() const {
  return job_->busy();
}

void ImportController::start(const ImportRequest& request, const QString& into, bool dialogs) {
  dialogs_ = dialogs;
  summary_.clear();
  last_ = request;
  lastInto_ = into;
  if (into.isEmpty()) {
    emit failed("no open trace file to import into", dialogs);
    return;
  }
  if (!progress_) {
    progress_ = new QProgressDialog("Importing…", "Cancel", 0, 100, window_);
    progress_->setObjectName("importProgress");
    progress_->setWindowTitle("Import traces");
    progress_->setMinimumDuration(300);
    progress_->setAutoClose(false);
    progress_->setAutoReset(false);
    connect(progress_, &QProgressDialog::canceled, job_, &ImportJob::cancel);
    connect(job_, &ImportJob::progress, this, [this](const QString& stage, int percent) {
      progress_->setLabelText(QString("Importing: %1").arg(stage));
      if (dialogs_) progress_->setValue(percent);
    });
  }
  // Shown only if the import takes longer than the minimum duration: setValue(minimum) starts
  // QProgressDialog's timer, and reset() when it ends stops it (a quick import never flashes).
  progress_->reset();
  progress_->setLabelText("Importing: read");
  if (dialogs) progress_->setValue(0);
  emit status(QString("importing %1 file(s)…").arg(request.files.size()));
  job_->start(request, into);
}

void ImportController::endProgress() {
  // hide() alone leaves the dialog's show timer running: an import that ended within the
  // minimum duration had its progress dialog pop up afterwards, stuck at its last value.
  progress_->reset();
  progress_->hide();
}

QString ImportController::lastSummary() const {
  return importWords(summary_);
}

void ImportController::showSummary(const QString& summary) {
  auto* box = new ImportSummaryDialog(summary, window_);
  box->setAttribute(Qt::WA_DeleteOnClose);
  // The same files into the same trace file, each thread a rank: a second run beside the first.
  connect(box, &ImportSummaryDialog::reimportThreadsAsRanks, this, [this] {
    ImportRequest again = last_;
    again.threadsAsRanks = true;
    start(again, lastInto_, dialogs_);
  });
  box->show();
}

}  // namespace ps::ui
