#pragma once
// The state one nsys import shares between its table scans (NsysScans.h), plus the row loop they
// all use: errors name the file and table, the cancel flag is polled every few thousand rows.

#include <string>
#include <string_view>
#include <vector>

#include "trace/import/nsys/NsysEnums.h"
#include "trace/import/nsys/NsysProcess.h"
#include "trace/import/nsys/NsysProgress.h"
#include "trace/import/nsys/NsysSchema.h"
#include "trace/import/nsys/NsysStrings.h"
#include "trace/store/Sqlite.h"

namespace ps::trace::import::nsys {

struct NsysContext {
  const std::string& path;
  SqliteDb& db;
  const NsysSchema& schema;
  const NsysEnums& enums;
  NsysStrings& strings;
  const ReadControl& control;
  NsysProgress& progress;
  NsysProcesses processes;
  std::vector<std::string> warnings;  // about the whole file; every trace gets them

  Error cancelledError() const { return Error{path + ": import cancelled"}; }

  // Runs `sql` (a SELECT on `table`) and calls onRow(statement) for each row.
  template <typename OnRow>
  Status scan(std::string_view table, const std::string& sql, OnRow&& onRow) {
    if (control.cancelled()) return cancelledError();
    const std::string what = "reading " + std::string(table);
    auto stmt = db.prepare(sql);
    if (!stmt) return db.lastError(what);
    for (;;) {
      const int rc = stmt->stepFast();
      if (rc == 0) break;
      if (rc < 0) return db.lastError(what);
      onRow(*stmt);
      if (!progress.row()) return cancelledError();
    }
    return {};
  }
};

}  // namespace ps::trace::import::nsys
