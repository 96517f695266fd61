#pragma once
// What File → Import asks for: the files, their format, how to align the ranks' clocks. The
// import job hands it to runtime::importRun (runtime/run/ImportRun.h), as the CLI does its flags.

#include <QMap>
#include <QString>
#include <QStringList>

#include <string>

namespace ps::ui {

struct ImportRequest {
  QString format;  // an ImportFormat's name (trace/import/ImportFormats.h): "kineto", "nsys"...
  QStringList files;
  QString align = "auto";       // auto | wall | collective | p2p
  QString rulesFile;            // optional label-mapping rules JSON
  QString name;                 // run name; empty = automatic
  bool threadsAsRanks = false;  // a single-process trace: each thread a rank (profiles only)
  QMap<QString, int> ranks;     // file -> its rank, where the files do not say (profiles only)
};

// The format a set of files most likely is (each format's guess from the name and first bytes:
// SQLite = nsys, JSON or gzip = kineto, .csv = torch-csv); empty when unknown or mixed.
QString guessImportFormat(const QStringList& files);

// How a format's file is called in a sentence ("a PyTorch profiler trace"); empty for a name
// that is no import format.
QString importFormatNoun(const QString& format);

// Whether the format's files are SQLite databases, like PipeScope's own traces (nsys): such a
// file may be a trace of ours; any other format's file is not.
bool importFormatIsSqlite(const QString& format);

// Whether a run's source names an imported schedule (a format of kind Schedule: torch-csv),
// which is simulated and so reruns like a plan, unlike an imported profile.
bool isImportedSchedule(const std::string& source);

// Whether a run's source names an imported profile format (nsys, kineto).
bool isImportedProfileFormat(const std::string& source);

// The run's name: the one asked for, else the CLI's default (trace/import/ImportName.h:
// "nsys rank0.sqlite +3").
std::string importRunName(const ImportRequest& request);

}  // namespace ps::ui
