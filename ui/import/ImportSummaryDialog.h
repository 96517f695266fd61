#pragma once
// What an import recognised: ranks, steps, ops by kind, unknown labels, clock offsets and the
// readers' warnings, so the user can see at once whether their naming was understood. In the
// dialog's words (importWords), not the CLI's. When one process ran its compute on several
// threads that overlap on its one rank, it says so and offers to import again with each thread
// a rank, in one click.

#include <QDialog>

namespace ps::ui {

class ImportSummaryDialog : public QDialog {
  Q_OBJECT
 public:
  // `summary` as the import core words it.
  ImportSummaryDialog(const QString& summary, QWidget* parent = nullptr);

 signals:
  // "Reimport with each thread as a rank" was clicked (the dialog closes).
  void reimportThreadsAsRanks();
};

}  // namespace ps::ui
