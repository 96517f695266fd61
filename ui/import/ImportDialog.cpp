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
#include <QRegularExpression>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

#include <optional>

#include "trace/import/ImportFormats.h"
#include "ui/ListWidthDelegate.h"
#include "ui/QtText.h"
#include "ui/import/ImportWords.h"

namespace ps::ui {
namespace {

// "0 1, 3": each file's rank in the list's order; empty: the files say. Nothing when the text
// is not one rank number >= 0 per file.
std::optional<QMap<QString, int>> ranksOf(const QString& text, const QStringList& files) {
  const QStringList words = text.split(QRegularExpression("[\\s,]+"), Qt::SkipEmptyParts);
  if (words.isEmpty()) return QMap<QString, int>{};
  if (words.size() != files.size()) return std::nullopt;
  QMap<QString, int> ranks;
  for (int i = 0; i < words.size(); ++i) {
    bool ok = false;
    const int rank = words[i].toInt(&ok);
    if (!ok || rank < 0) return std::nullopt;
    ranks[files[i]] = rank;
  }
  return ranks;
}

}  // namespace

ImportDialog::ImportDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("Import traces");
  setObjectName("importDialog");
  files_ = new QListWidget(this);
  files_->setObjectName("importFiles");
  files_->setMinimumWidth(520);
  files_->setTextElideMode(Qt::ElideLeft);
  files_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  files_->setResizeMode(QListView::Adjust);
  // Rows as wide as the list: with ElideLeft above, the file name stays in sight.
  files_->setItemDelegate(new ListWidthDelegate(files_));
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
  for (const char* mode : {"auto", "wall", "collective", "p2p"})
    align_->addItem(alignModeChoice(mode), mode);
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
  ranks_ = new QLineEdit(this);
  ranks_->setObjectName("importRanks");
  ranks_->setPlaceholderText("optional: each file's rank in the list's order, e.g. 0 1 2 3");
  ranks_->setToolTip("For files whose contents and names do not say which rank they are");
  connect(ranks_, &QLineEdit::textChanged, this, &ImportDialog::updateOk);
  threadsAsRanks_ = new QCheckBox(
      QString("%1 (one process ran every stage)").arg(importlabels::kThreadsAsRanks), this);
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
  form->addRow(importlabels::kAlign, align_);
  form->addRow(importlabels::kRules, rulesRow);
  form->addRow(importlabels::kName, name_);
  form->addRow(importlabels::kRanks, ranks_);
  form->addRow("", threadsAsRanks_);

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
  for (const QString& f : files) {
    auto* item = new QListWidgetItem(f, files_);
    item->setToolTip(f);
  }
  const QString guessed = guessImportFormat(files);
  const int index = format_->findData(guessed);
  if (index >= 0) format_->setCurrentIndex(index);
  updateOk();
}

QStringList ImportDialog::files() const {
  QStringList files;
  for (int i = 0; i < files_->count(); ++i)
    files << files_->item(i)->text();
  return files;
}

// Import needs files, and ranks (when given) one per file.
void ImportDialog::updateOk() {
  const bool ranksOk = !ranks_->isEnabled() || ranksOf(ranks_->text(), files()).has_value();
  ranks_->setStyleSheet(ranksOk ? QString() : "QLineEdit { color: #b00020; }");
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(files_->count() > 0 && ranksOk);
}

// Ranks and threads as ranks are for profiles; a schedule has its ranks in the file.
void ImportDialog::updateFormatOptions() {
  const auto* f = trace::import::findImportFormat(format_->currentData().toString().toStdString());
  const bool profiles = f != nullptr && f->kind == trace::import::ImportKind::Profiles;
  threadsAsRanks_->setEnabled(profiles);
  ranks_->setEnabled(profiles);
  updateOk();
}

ImportRequest ImportDialog::request() const {
  ImportRequest r;
  r.format = format_->currentData().toString();
  r.files = files();
  if (ranks_->isEnabled())
    r.ranks = ranksOf(ranks_->text(), r.files).value_or(QMap<QString, int>{});
  r.align = align_->currentData().toString();
  r.rulesFile = rules_->text().trimmed();
  r.name = name_->text().trimmed();
  r.threadsAsRanks = threadsAsRanks_->isEnabled() && threadsAsRanks_->isChecked();
  return r;
}

}  // namespace ps::ui
