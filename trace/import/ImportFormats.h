#pragma once
// The registry of import formats (ImportFormat.h), in the order the dialog and the CLI's help
// show them. Adding a format: its folder defines `const ImportFormat& xFormat()`, and
// ImportFormats.cpp lists it.

#include <span>
#include <string>
#include <string_view>

#include "trace/import/ImportFormat.h"

namespace ps::trace::import {

// Every format, in display order: nsys, kineto, torch-csv.
std::span<const ImportFormat> importFormats();

// The format called `name`, or nullptr.
const ImportFormat* findImportFormat(std::string_view name);

// The names joined by `separator`: "nsys, kineto, torch-csv" (for messages and help).
std::string importFormatNames(std::string_view separator = ", ");

// The first format (in display order) whose guess claims the file, from its path and first
// bytes (none when it cannot be read); nullptr when none claims it.
const ImportFormat* guessImportFormat(const std::string& path);

// A file-dialog filter string: every format's patterns together, then each format's filter,
// then all files: "Profiles (*.sqlite *.json *.gz *.csv);;Nsight Systems (*.sqlite);;...;;All
// files (*)".
std::string importFileFilter();

}  // namespace ps::trace::import
