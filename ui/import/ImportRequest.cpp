#include "ui/import/ImportRequest.h"

#include <vector>

#include "trace/import/ImportFormats.h"
#include "trace/import/ImportName.h"
#include "ui/QtText.h"

namespace ps::ui {
QString guessImportFormat(const QStringList& files) {
  QString format;
  for (const QString& f : files) {
    const auto* entry = trace::import::guessImportFormat(f.toStdString());
    if (entry == nullptr) return {};
    const QString guess = toQString(entry->name);
    if (!format.isEmpty() && guess != format) return {};
    format = guess;
  }
  return format;
}

QString importFormatNoun(const QString& format) {
  const auto* entry = trace::import::findImportFormat(format.toStdString());
  return entry ? toQString(entry->noun) : QString();
}

bool importFormatIsSqlite(const QString& format) {
  const auto* entry = trace::import::findImportFormat(format.toStdString());
  return entry && entry->sqliteFiles;
}

bool isImportedSchedule(const std::string& source) {
  const auto* entry = trace::import::findImportFormat(source);
  return entry && entry->kind == trace::import::ImportKind::Schedule;
}

bool isImportedProfileFormat(const std::string& source) {
  const auto* entry = trace::import::findImportFormat(source);
  return entry && entry->kind == trace::import::ImportKind::Profiles;
}

std::string importRunName(const ImportRequest& request) {
  if (!request.name.isEmpty()) return request.name.toStdString();
  std::vector<std::string> files;
  for (const QString& f : request.files)
    files.push_back(f.toStdString());
  return trace::import::defaultImportName(request.format.toStdString(), files);
}

}  // namespace ps::ui
