#pragma once
// Reads the files of one import with the reader of their format (ImportFormats.h; a format of
// kind Profiles: "kineto", "nsys"). The first file that fails stops the import with its error;
// nothing is written anywhere.

#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// The formats readTraceFiles reads, for messages: "nsys, kineto".
std::string traceFormats();

// Progress is reported over all files (each file its share by size). Errors: an unknown format
// ("unknown trace format "x" (valid: nsys, kineto)"), a format that is a schedule to simulate,
// not a profile to read, the first file's error.
Result<std::vector<RawRankTrace>> readTraceFiles(std::string_view format,
                                                 const std::vector<std::string>& files,
                                                 const ReadControl& control = {});

}  // namespace ps::trace::import
