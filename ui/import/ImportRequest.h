#pragma once
// What File → Import asks for: the files, their format, how to align the ranks' clocks.

#include <QString>
#include <QStringList>

#include <string>

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

// The run's name: the one asked for, else the CLI's default (trace/import/ImportName.h:
// "nsys rank0.sqlite +3").
std::string importRunName(const ImportRequest& request);

}  // namespace ps::ui
