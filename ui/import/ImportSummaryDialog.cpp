#include "ui/import/ImportSummaryDialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/import/ImportWords.h"

namespace ps::ui {

ImportSummaryDialog::ImportSummaryDialog(const QString& summary, QWidget* parent)
    : QDialog(parent) {
  setObjectName("importSummaryDialog");
  setWindowTitle("Import: what was recognised");
  auto* layout = new QVBoxLayout(this);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  if (advisesThreadsAsRanks(summary)) {
    auto* advice = new QLabel(
        QString("<b>One process ran its compute on several threads</b>: their ops overlap on its "
                "one rank, so the timeline stacks them and the bubble means little. Import again "
                "with <b>%1</b> to give each thread a rank of its own.")
            .arg(importlabels::kThreadsAsRanks),
        this);
    advice->setObjectName("importThreadsAdvice");
    advice->setWordWrap(true);
    layout->addWidget(advice);
    auto* reimport =
        buttons->addButton("Reimport with each thread as a rank", QDialogButtonBox::AcceptRole);
    reimport->setObjectName("importReimportThreads");
    reimport->setDefault(true);
    connect(reimport, &QPushButton::clicked, this, [this] {
      emit reimportThreadsAsRanks();
      close();
    });
  }
  auto* text = new QPlainTextEdit(importWords(summary), this);
  text->setObjectName("importSummary");
  text->setReadOnly(true);
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text->setMinimumSize(640, 260);
  auto* hint = new QLabel(
      QString("Labels that were not recognised are kept as OTHER ops. Map in-house names to ops "
              "with a rules file (File → Import traces… → %1).")
          .arg(importlabels::kRules),
      this);
  hint->setWordWrap(true);
  layout->addWidget(text);
  layout->addWidget(hint);
  layout->addWidget(buttons);
}

}  // namespace ps::ui
