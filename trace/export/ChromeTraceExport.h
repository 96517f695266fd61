#pragma once
// Chrome trace event JSON of any run, for Perfetto and chrome://tracing (issue 6 item 6):
//  - one process per rank ("rank r"), one thread per lane (compute, send, recv, collective,
//    other); ops of one lane that overlap (imported traces) go to extra rows "compute #2" ...
//    so no two complete events on one thread overlap;
//  - complete events ("X") with ts/dur in microseconds at nanosecond precision, args with stage,
//    micro-batch, step, bytes, peer;
//  - flow arrows send -> receive ("s"/"f" pairs) for matched point-to-point transfers;
//  - a memory counter track per rank.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "trace/Result.h"
#include "trace/RunTrace.h"

namespace ps::trace {

struct ChromeExportStats {
  std::int64_t events = 0;  // complete events
  std::int64_t flows = 0;   // send -> receive arrows
  int threads = 0;          // lanes and overflow rows
};

ChromeExportStats writeChromeTrace(const RunTrace& run, std::ostream& out);
// Writes to a temporary file next to `path` and renames it, so a failed export leaves no
// half-written file.
Result<ChromeExportStats> writeChromeTraceFile(const RunTrace& run, const std::string& path);

}  // namespace ps::trace
