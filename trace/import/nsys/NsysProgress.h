#pragma once
// Cancel polling and throttled progress for the row loops of the nsys reader: the cancel flag is
// read every few thousand rows, progress is reported at most once per percent (~100 calls).

#include <cstdint>

#include "trace/ProgressThrottle.h"
#include "trace/import/RawTrace.h"

namespace ps::trace::import::nsys {

class NsysProgress {
 public:
  // `totalRows`: an estimate of the rows all scans will read (max(rowid) per table).
  NsysProgress(const ReadControl& control, std::int64_t totalRows);

  // Counts one row; false when the import was cancelled (checked every kPollRows rows).
  bool row() {
    if (++pending_ < kPollRows) return true;
    return flush();
  }
  // Adds the pending rows, reports progress when it moved a percent, checks the cancel flag.
  bool flush();
  void finish();

 private:
  static constexpr std::int64_t kPollRows = 4096;
  const ReadControl& control_;
  std::int64_t total_;
  std::int64_t done_ = 0;
  std::int64_t pending_ = 0;
  ProgressThrottle throttle_;
};

}  // namespace ps::trace::import::nsys
