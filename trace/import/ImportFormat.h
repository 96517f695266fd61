#pragma once
// One file format that File → Import and `pipescope-cli import` offer. Each format's folder
// (kineto/, nsys/, torchcsv/) defines its entry; ImportFormats.h lists them, and the CLI, the
// import dialog and the main window only ever iterate that list, so a new format touches its own
// folder plus one line of the registry.

#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// How a format's files become a run.
enum class ImportKind {
  // Timed profiles: `read` each file, then the shared stages (assembleImport, writeImportedRun).
  Profiles,
  // An untimed schedule that is simulated (runtime::runPlan with PlanSpec::scheduleFile): trace/
  // cannot run a plan, so `read` is null and runtime::importRun (runtime/run/ImportRun.h), the one
  // import of the CLI and the app, runs it.
  Schedule,
};

// Reads one file into the raw profiles it holds (an Nsight Systems export may hold several
// ranks). Errors name the file.
using ImportFileReader = Result<std::vector<RawRankTrace>> (*)(const std::string& path,
                                                               const ReadControl& control);

// Whether a file probably is this format, from its path (a suffix) and its first bytes (up to
// kImportGuessBytes; fewer for a shorter file).
using ImportFileGuess = bool (*)(std::string_view path, std::string_view head);

inline constexpr std::size_t kImportGuessBytes = 64;

struct ImportFormat {
  std::string_view name;    // "kineto": the CLI's FORMAT, run.source, the dialog's item data
  std::string_view label;   // "PyTorch profiler (Kineto JSON, .json.gz)": the dialog's item
  std::string_view noun;    // "a PyTorch profiler trace": "X is <noun>, not a PipeScope trace"
  std::string_view filter;  // "PyTorch profiler (*.json *.json.gz)": one file-dialog filter
  ImportKind kind = ImportKind::Profiles;
  // Its files are SQLite databases, as PipeScope's own traces are: a file of this format may be
  // a trace of ours that does not open (the app then keeps the store's own message).
  bool sqliteFiles = false;
  ImportFileGuess guess = nullptr;
  ImportFileReader read = nullptr;  // Profiles only
};

}  // namespace ps::trace::import
