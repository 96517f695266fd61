#pragma once
// A row of the run table (DESIGN §4): its columns, and how one is read into a RunInfo.

#include <string_view>

#include "trace/TraceRecords.h"
#include "trace/store/Sqlite.h"

namespace ps::trace {

// The run columns every v1 file has, in the order readRunRow expects (the optional
// status_message goes last).
inline constexpr std::string_view kRunColumns =
    "id, name, created_utc, source, schedule, num_ranks, num_stages, num_microbatches, "
    "config_json, status";

// Reads a run row from a statement selecting kRunColumns (then status_message, when
// `withStatusMessage`).
RunInfo readRunRow(const SqliteStatement& stmt, bool withStatusMessage = true);

}  // namespace ps::trace
