#pragma once
// The default name of an imported run, shared by pipescope-cli import and File → Import so that
// both name a run alike: short enough for the run history, saying what was imported.

#include <string>
#include <string_view>
#include <vector>

namespace ps::trace::import {

// "<format> <first file's base name>", plus " +N" for N more files: "nsys rank0.sqlite +3",
// "kineto trace.json.gz", "torch-csv sched.csv"; "<format> import" without files.
std::string defaultImportName(std::string_view format, const std::vector<std::string>& files);

}  // namespace ps::trace::import
