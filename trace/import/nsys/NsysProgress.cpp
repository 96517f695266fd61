#include "trace/import/nsys/NsysProgress.h"

#include <algorithm>

namespace ps::trace::import::nsys {

NsysProgress::NsysProgress(const ReadControl& control, std::int64_t totalRows)
    : control_(control), total_(std::max<std::int64_t>(totalRows, 1)) {}

bool NsysProgress::flush() {
  done_ += pending_;
  pending_ = 0;
  // Stop one short of 100: finish() reports the end once everything is built.
  const int percent = static_cast<int>(std::min<std::int64_t>(done_ * 100 / total_, 99));
  if (throttle_.pass(percent / 100.0)) control_.report(percent / 100.0);
  return !control_.cancelled();
}

void NsysProgress::finish() {
  control_.report(1.0);
}

}  // namespace ps::trace::import::nsys
