#include "ui/import/ImportSummaryDialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace ps::ui {

ImportSummaryDialog::ImportSummaryDialog(const QString& summary, QWidget* parent)
    : QDialog(parent) {
  setObjectName("importSummaryDialog");
  setWindowTitle("Import: what was recognised");
  auto* text = new QPlainTextEdit(summary, this);
  text->setObjectName("importSummary");
  text->setReadOnly(true);
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text->setMinimumSize(640, 260);
  auto* hint = new QLabel(
      "Labels that were not recognised are kept as OTHER ops. Map in-house names to ops with a "
      "rules file (File → Import traces… → Label rules).",
      this);
  hint->setWordWrap(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(text);
  layout->addWidget(hint);
  layout->addWidget(buttons);
}

}  // namespace ps::ui
