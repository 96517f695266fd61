#pragma once
// File → Import of the main window: the dialog, the worker job (ImportJob, runtime::importRun),
// a progress dialog with Cancel, and the summary of what was recognised. The window shows the
// imported run when imported() says which it is.

#include <QObject>
#include <QString>
#include <QStringList>

#include "ui/import/ImportRequest.h"

class QProgressDialog;
class QWidget;

namespace ps::ui {

class ImportJob;

class ImportController : public QObject {
  Q_OBJECT
 public:
  // `window` is the parent of the dialogs (import, progress, summary).
  explicit ImportController(QWidget* window);

  // The import dialog (with `files` in it, if any), then start() into `into`.
  void choose(const QStringList& files, const QString& into);
  // Imports into the trace file `into` on a worker thread, with a progress dialog and Cancel.
  // `dialogs` false (tests) shows no modal error box and no progress.
  void start(const ImportRequest& request, const QString& into, bool dialogs = true);
  bool busy() const;
  // The last import's summary as the summary box shows it (in the dialog's words).
  QString lastSummary() const;
  // What was recognised, in a non-modal box that stays beside the timeline while the user looks;
  // it offers to import the last request again with each thread a rank where that is advised.
  void showSummary(const QString& summary);

 signals:
  void imported(qint64 runId, const QString& summary);
  // `dialog`: the message deserves a modal box.
  void failed(const QString& message, bool dialog);
  void status(const QString& text);

 private:
  void endProgress();

  QWidget* window_;
  ImportJob* job_;
  QProgressDialog* progress_ = nullptr;
  QString summary_;  // as the import core words it
  ImportRequest last_;
  QString lastInto_;
  bool dialogs_ = true;
};

}  // namespace ps::ui
