#pragma once
// What File → Import asks for: the files, their format, how to align the ranks' clocks.

#include <QString>
#include <QStringList>

namespace ps::ui {

struct ImportRequest {
  QString format;  // "kineto" | "nsys" | "torch-csv"
  QStringList files;
  QString align = "auto";  // auto | wall | collective | p2p
  QString rulesFile;       // optional label-mapping rules JSON
  QString name;            // run name; empty = automatic
};

// The format a set of files most likely is: torch-csv by suffix, else from the first bytes
// (SQLite = nsys, JSON or gzip = kineto); empty when unknown or mixed.
QString guessImportFormat(const QStringList& files);

}  // namespace ps::ui
