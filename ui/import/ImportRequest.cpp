#include "ui/import/ImportRequest.h"

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

}  // namespace ps::ui
