#include "runtime/cuda/EventTimeline.h"

#include <cmath>

namespace ps::runtime {

std::int64_t msToNs(double ms) {
  return static_cast<std::int64_t>(std::llround(ms * 1e6));
}

int EventTimeline::addAnchor(double msSincePrevious) {
  anchorNs_.push_back(anchorNs_.back() + msToNs(msSincePrevious));
  return static_cast<int>(anchorNs_.size()) - 1;
}

std::int64_t EventTimeline::toHostNs(int anchor, double msSinceAnchor) const {
  return anchorNs_.at(anchor) + msToNs(msSinceAnchor);
}

}  // namespace ps::runtime
