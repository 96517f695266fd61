#pragma once
// Reads the files of one import with the reader for their format: "kineto" (PyTorch profiler
// JSON, .json/.json.gz) or "nsys" (Nsight Systems SQLite export). The first file that fails
// stops the import with its error; nothing is written anywhere.

#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// The formats readTraceFiles knows, for messages: "kineto, nsys".
std::string_view traceFormats();

// Progress is reported over all files (each file its share by size).
Result<std::vector<RawRankTrace>> readTraceFiles(std::string_view format,
                                                 const std::vector<std::string>& files,
                                                 const ReadControl& control = {});

// The format a file probably is, from its first bytes ("kineto", "nsys") or "" when unknown.
std::string guessTraceFormat(const std::string& path);

}  // namespace ps::trace::import
