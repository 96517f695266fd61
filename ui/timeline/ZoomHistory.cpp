#include "ui/timeline/ZoomHistory.h"

namespace ps::ui {

void ZoomHistory::record(const TimeRange& current) {
  back_.push_back(current);
  if (back_.size() > kDepth) back_.erase(back_.begin());
  forward_.clear();
}

TimeRange ZoomHistory::back(const TimeRange& current) {
  if (back_.empty()) return current;
  const TimeRange r = back_.back();
  back_.pop_back();
  forward_.push_back(current);
  return r;
}

TimeRange ZoomHistory::forward(const TimeRange& current) {
  if (forward_.empty()) return current;
  const TimeRange r = forward_.back();
  forward_.pop_back();
  back_.push_back(current);
  return r;
}

void ZoomHistory::clear() {
  back_.clear();
  forward_.clear();
}

}  // namespace ps::ui
