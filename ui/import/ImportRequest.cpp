#include "ui/import/ImportRequest.h"

#include <vector>

#include "trace/import/ImportName.h"
#include "trace/import/ImportReaders.h"

namespace ps::ui {

QString guessImportFormat(const QStringList& files) {
  QString format;
  for (const QString& f : files) {
    const QString guess =
        f.endsWith(".csv", Qt::CaseInsensitive)
            ? QString("torch-csv")
            : QString::fromStdString(trace::import::guessTraceFormat(f.toStdString()));
    if (guess.isEmpty() || (!format.isEmpty() && guess != format)) return {};
    format = guess;
  }
  return format;
}

std::string importRunName(const ImportRequest& request) {
  if (!request.name.isEmpty()) return request.name.toStdString();
  std::vector<std::string> files;
  for (const QString& f : request.files)
    files.push_back(f.toStdString());
  return trace::import::defaultImportName(request.format.toStdString(), files);
}

}  // namespace ps::ui
