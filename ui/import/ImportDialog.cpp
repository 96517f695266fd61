#include "ui/import/ImportDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "trace/import/ImportFormats.h"
#include "ui/QtText.h"

namespace ps::ui {
ImportDialog::ImportDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("Import traces");
  setObjectName("importDialog");
  files_ = new QListWidget(this);
  files_->setObjectName("importFiles");
  files_->setMinimumWidth(520);
  auto* add = new QPushButton("Add files…", this);
  add->setObjectName("importAddFiles");
  auto* clear = new QPushButton("Clear", this);
  connect(add, &QPushButton::clicked, this, &ImportDialog::addFiles);
  connect(clear, &QPushButton::clicked, this, [this] {
    files_->clear();
    updateOk();
  });

  format_ = new QComboBox(this);
  format_->setObjectName("importFormat");
  for (const auto& f : trace::import::importFormats())
    format_->addItem(toQString(f.label), toQString(f.name));
  align_ = new QComboBox(this);
  align_->setObjectName("importAlign");
  align_->addItem("Automatic (send/receive pairs, else collectives, else wall clock)", "auto");
  align_->addItem("Wall clock (trust the files' UTC times)", "wall");
  align_->addItem("Ends of shared collectives", "collective");
  align_->addItem("Send/receive pairs (least squares)", "p2p");
  rules_ = new QLineEdit(this);
  rules_->setObjectName("importRules");
  rules_->setPlaceholderText("optional: JSON rules mapping in-house labels to ops");
  auto* browse = new QPushButton("…", this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString f =
        QFileDialog::getOpenFileName(this, "Label mapping rules", {}, "JSON (*.json)");
    if (!f.isEmpty()) rules_->setText(f);
  });
  name_ = new QLineEdit(this);
  name_->setObjectName("importName");
  name_->setPlaceholderText("automatic");
  threadsAsRanks_ = new QCheckBox("Each thread is a rank (one process ran every stage)", this);
  threadsAsRanks_->setObjectName("importThreadsAsRanks");
  threadsAsRanks_->setToolTip(
      "For a single-process trace whose pipeline stages ran on threads: every thread (or GPU "
      "stream) with recognised ops becomes a rank of its own");
  connect(format_, &QComboBox::currentIndexChanged, this, &ImportDialog::updateFormatOptions);

  auto* fileButtons = new QHBoxLayout;
  fileButtons->addWidget(add);
  fileButtons->addWidget(clear);
  fileButtons->addStretch();
  auto* rulesRow = new QHBoxLayout;
  rulesRow->addWidget(rules_);
  rulesRow->addWidget(browse);
  auto* form = new QFormLayout;
  form->addRow("Format", format_);
  form->addRow("Clock alignment", align_);
  form->addRow("Label rules", rulesRow);
  form->addRow("Run name", name_);
  form->addRow("Ranks", threadsAsRanks_);

  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText("Import");
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(files_);
  layout->addLayout(fileButtons);
  layout->addLayout(form);
  layout->addWidget(buttons_);
  updateOk();
  updateFormatOptions();
}

void ImportDialog::addFiles() {
  const QStringList picked = QFileDialog::getOpenFileNames(
      this, "Import traces", {}, QString::fromStdString(trace::import::importFileFilter()));
  if (picked.isEmpty()) return;
  QStringList all;
  for (int i = 0; i < files_->count(); ++i)
    all << files_->item(i)->text();
  setFiles(all + picked);
}

void ImportDialog::setFiles(const QStringList& files) {
  files_->clear();
  files_->addItems(files);
  const QString guessed = guessImportFormat(files);
  const int index = format_->findData(guessed);
  if (index >= 0) format_->setCurrentIndex(index);
  updateOk();
}

void ImportDialog::updateOk() {
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(files_->count() > 0);
}

// Threads as ranks splits profiles; a schedule has its ranks in the file.
void ImportDialog::updateFormatOptions() {
  const auto* f = trace::import::findImportFormat(format_->currentData().toString().toStdString());
  threadsAsRanks_->setEnabled(f != nullptr && f->kind == trace::import::ImportKind::Profiles);
}

ImportRequest ImportDialog::request() const {
  ImportRequest r;
  r.format = format_->currentData().toString();
  for (int i = 0; i < files_->count(); ++i)
    r.files << files_->item(i)->text();
  r.align = align_->currentData().toString();
  r.rulesFile = rules_->text().trimmed();
  r.name = name_->text().trimmed();
  r.threadsAsRanks = threadsAsRanks_->isEnabled() && threadsAsRanks_->isChecked();
  return r;
}

}  // namespace ps::ui
