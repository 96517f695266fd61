#pragma once
// Back / forward through the ranges the user zoomed to (Nsight's and Perfetto's zoom history).
// The view records the range it leaves at each zoom or fit; pans are not recorded, and a burst of
// wheel zooms is recorded once (the view decides what a burst is).

#include <cstddef>
#include <vector>

#include "ui/timeline/TimeMapping.h"

namespace ps::ui {

class ZoomHistory {
 public:
  static constexpr std::size_t kDepth = 100;

  // Called before the view leaves `current` for a zoom: it becomes the way back (the oldest of
  // kDepth steps is forgotten); the way forward is dropped.
  void record(const TimeRange& current);
  bool canBack() const { return !back_.empty(); }
  bool canForward() const { return !forward_.empty(); }
  // The range to show instead of `current`, which becomes the way forward (or back).
  TimeRange back(const TimeRange& current);
  TimeRange forward(const TimeRange& current);
  void clear();

 private:
  std::vector<TimeRange> back_, forward_;
};

}  // namespace ps::ui
