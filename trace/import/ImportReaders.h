#pragma once
// Reads the files of one import with the reader of their format (ImportFormats.h; a format of
// kind Profiles: "kineto", "nsys"), several at once. The first file that fails stops the import
// with its error; nothing is written anywhere.

#include <string>
#include <string_view>
#include <vector>

#include "trace/Result.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import {

// The formats readTraceFiles reads, for messages: "nsys, kineto".
std::string traceFormats();

// Reads the files on `threads` threads at once (0: one per core; never more than files), each
// thread taking the next file in order; the traces come back in file order, the same as a read
// on one thread. Progress is reported over all files (each file its share by size), one call at
// a time. Errors: an unknown format ("unknown trace format "x" (valid: nsys, kineto)"), a format
// that is a schedule to simulate, not a profile to read, the error of the first file (in file
// order) that fails — what a read of one file after another would have stopped at; once a file
// fails, the files after it stop reading.
Result<std::vector<RawRankTrace>> readTraceFiles(std::string_view format,
                                                 const std::vector<std::string>& files,
                                                 const ReadControl& control = {},
                                                 unsigned threads = 0);

// How many threads readTraceFiles uses for `files` files when asked for `requested` (0: cores).
unsigned readThreads(unsigned requested, std::size_t files);

}  // namespace ps::trace::import
